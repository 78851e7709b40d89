// `cua-annotator export`: AgentNet/OpenCUA formats into a folder, all-or-nothing.
import {
  EXPORT_FORMATS,
  exportRecordings,
  type ExportFormat,
} from '../../services/export/export-service';
import { listLibrary } from '../../services/recordings';
import { parseCommandArgs, UsageError } from '../args';
import type { Command } from '../command';
import { withLibrary } from '../context';
import { createProgress, out, outJson } from '../output';
import { APP_VERSION } from '../version';

const HELP = `Usage: cua-annotator export <id...|--all> --format FORMAT --out DIR [--embed-images]
                            [--overwrite] [--json] [--library DIR]

Exports recordings (steps with every edit applied) in the AgentNet/OpenCUA formats:
  agentnet-raw     one AgentNet Tool folder per recording (<episode>/): events.jsonl,
                   metadata.json, task_name.json, the mp4, reduced_events_{complete,vis}.jsonl,
                   a11y.jsonl, element.jsonl, top_window.jsonl — accepted unchanged by
                   OpenCUA's data/data-process scripts
  agentnet-jsonl   agentnet.jsonl (one AgentNet dataset record per recording; unknown fields
                   null) + images/<episode>_<i>.png + cot-input/<episode>.jsonl
  standardized     <episode>.json (OpenCUA Trajectory) + images/<episode>_<i>.png
                   (--embed-images writes data URIs instead)

Keyframes are chosen exactly as the OpenCUA pipeline does (one decode pass, BT.601 frames).
Nothing is written unless every recording exports; existing outputs are refused unless
--overwrite.

Options:
  --all            every recording in the library
  --format F       ${EXPORT_FORMATS.join(' | ')}
  --out DIR        output folder (created if missing)
  --embed-images   standardized: embed PNGs as data URIs
  --overwrite      replace existing outputs of the same names
  --json           print a JSON summary
  --library DIR    library folder
  -h, --help       show this help`;

/** The `export` command. */
export const exportCommand: Command = {
  name: 'export',
  summary: 'export recordings as agentnet-raw, agentnet-jsonl or standardized',
  help: HELP,
  run: async (argv) => {
    const { values, positionals } = parseCommandArgs(argv, {
      all: { type: 'boolean' },
      format: { type: 'string' },
      out: { type: 'string' },
      'embed-images': { type: 'boolean' },
      overwrite: { type: 'boolean' },
      json: { type: 'boolean' },
    });
    if (values.help) {
      out(HELP);
      return 0;
    }
    if (!values.format || !EXPORT_FORMATS.includes(values.format as ExportFormat)) {
      throw new UsageError(`--format must be one of ${EXPORT_FORMATS.join(', ')}`);
    }
    if (!values.out) {
      throw new UsageError('--out DIR is required');
    }
    if (values.all === Boolean(positionals.length)) {
      throw new UsageError('give recording ids or --all (not both)');
    }
    const format = values.format as ExportFormat;
    const outDir = values.out;
    const results = await withLibrary(values.library, async (lib) => {
      const ids = values.all ? listLibrary(lib).map((r) => r.id) : positionals;
      if (!ids.length) {
        throw new UsageError('the library has no recordings to export');
      }
      const progress = createProgress(ids.length, Boolean(process.stderr.isTTY) && !values.json);
      try {
        return await exportRecordings(lib, ids, {
          format,
          outDir,
          embedImages: values['embed-images'],
          overwrite: values.overwrite,
          appVersion: APP_VERSION,
          onProgress: (p) => progress.update(p.done, `${p.recordingId.slice(0, 8)} ${p.phase}`),
        });
      } finally {
        progress.finish();
      }
    });
    if (values.json) {
      outJson({ format, out: outDir, recordings: results });
      return 0;
    }
    for (const r of results) {
      for (const w of r.warnings) {
        out(`warning: ${r.id.slice(0, 8)} ${w}`);
      }
    }
    const steps = results.reduce((n, r) => n + r.steps, 0);
    out(`exported ${results.length} recording(s), ${steps} steps, as ${format} to ${outDir}`);
    return 0;
  },
};
