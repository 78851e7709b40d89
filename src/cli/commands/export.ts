// `cua-annotator export`: AgentNet/OpenCUA formats into a folder, all-or-nothing.
import { EXPORT_FORMATS, type ExportFormat } from '../../shared/domain';
import { UsageError } from '../args';
import { defineCommand, type Command } from '../command';
import { withServices } from '../context';
import { createProgress, out, outJson } from '../output';
import { APP_VERSION } from '../version';
import { formatMiB, openCliStore, resolveCliTarget, TARGET_HELP, TARGET_OPTIONS } from './upload';

const HELP = `Usage: cua-annotator export <id...|--all> --format FORMAT --out DIR [--embed-images]
                            [--overwrite] [--skip-damaged] [--allow-pii] [--json] [--library DIR]
       cua-annotator export <id...|--all> --format FORMAT --out s3://BUCKET/PREFIX
                            [--endpoint URL] [--region R] [--path-style] [--profile NAME]

Exports recordings (steps with every edit applied) in the AgentNet/OpenCUA formats:
  agentnet-raw     one AgentNet Tool folder per recording (<episode>/): events.jsonl,
                   metadata.json, task_name.json, the mp4, reduced_events_{complete,vis}.jsonl,
                   a11y.jsonl, element.jsonl, top_window.jsonl — accepted unchanged by
                   OpenCUA's data/data-process scripts
  agentnet-jsonl   agentnet.jsonl (one AgentNet dataset record per recording; unknown fields
                   null) + images/<episode>_<i>.png + cot-input/<episode>.jsonl
  standardized     <episode>.json (OpenCUA Trajectory) + images/<episode>_<i>.png
                   (--embed-images writes data URIs instead)

Keyframes are chosen exactly as the OpenCUA pipeline does (one decode pass, BT.601 frames);
the keyframes stored in the library (computed after import, recording and edits) are used
when every one is fresh, and the video is decoded only when they are not (or it is trimmed).
Nothing is written unless every recording exports; existing outputs are refused unless
--overwrite. Every video is checked against the SHA-256 stored when it entered the library;
a damaged recording (unreadable rows, a missing or changed video) stops the export before
anything is written, naming it. Recordings sharing an episode name get their own folders
(the later ones with a short id suffix).

Options:
  --all            every recording in the library (those without steps — nothing was
                   recorded — are skipped with a notice)
  --format F       ${EXPORT_FORMATS.join(' | ')}
  --out DIR        output folder (created if missing), or s3://BUCKET/PREFIX to write the
                   export to S3-compatible storage (every object verified; cua-export.json,
                   the file list with sizes and SHA-256, is written last)
  --embed-images   standardized: embed PNGs as data URIs
  --overwrite      replace existing outputs of the same names
  --skip-damaged   export the other recordings and list the damaged ones skipped
  --allow-pii      export despite unresolved card/IBAN/secret findings of \`scan\` (refused
                   with PII_UNRESOLVED otherwise; recorded in the review history and in
                   metadata.json / cua-export.json); other kinds only warn
${TARGET_HELP}
  --json           print a JSON summary
  --library DIR    library folder
  -h, --help       show this help`;

/** The `export` command. */
export const exportCommand: Command = defineCommand({
  name: 'export',
  summary: 'export recordings as agentnet-raw, agentnet-jsonl or standardized',
  help: HELP,
  options: {
    all: { type: 'boolean' },
    format: { type: 'string' },
    out: { type: 'string' },
    'embed-images': { type: 'boolean' },
    overwrite: { type: 'boolean' },
    'skip-damaged': { type: 'boolean' },
    'allow-pii': { type: 'boolean' },
    json: { type: 'boolean' },
    ...TARGET_OPTIONS,
  },
  run: async ({ values, positionals }) => {
    if (!values.format || !EXPORT_FORMATS.includes(values.format as ExportFormat)) {
      throw new UsageError(`--format must be one of ${EXPORT_FORMATS.join(', ')}`);
    }
    if (!values.out) {
      throw new UsageError('--out DIR is required');
    }
    if (Boolean(values.all) === positionals.length > 0) {
      throw new UsageError('give recording ids or --all (not both)');
    }
    const format = values.format as ExportFormat;
    const outDir = values.out;
    if (outDir.startsWith('s3://')) {
      const result = await withServices(values.library, async (services) => {
        const ids = values.all ? services.listRecordings().map((r) => r.id) : positionals;
        if (!ids.length) {
          throw new UsageError('the library has no recordings to export');
        }
        const { target } = resolveCliTarget(services, { ...values, url: outDir });
        const store = openCliStore(target, values.profile);
        const progress = createProgress(100, Boolean(process.stderr.isTTY) && !values.json);
        try {
          return await services.exportToStore(ids, store, {
            format,
            prefix: target.prefix,
            embedImages: values['embed-images'],
            allowPii: values['allow-pii'] ?? false,
            appVersion: APP_VERSION,
            onUploadProgress: (done, total) =>
              progress.update(Math.floor((done / Math.max(1, total)) * 100), 'uploading'),
          });
        } finally {
          progress.finish();
          store.close();
        }
      });
      if (values.json) {
        outJson({ format, out: outDir, recordings: result.recordings, files: result.files });
        return 0;
      }
      const steps = result.recordings.reduce((n, r) => n + r.steps, 0);
      out(
        `exported ${result.recordings.length} recording(s), ${steps} steps, as ${format} to ` +
          `${outDir} (${result.files.length} files, ${formatMiB(result.bytes)}, verified)`,
      );
      return 0;
    }
    const run = await withServices(
      values.library,
      async (services) => {
        const ids = values.all ? services.listRecordings().map((r) => r.id) : positionals;
        if (!ids.length) {
          throw new UsageError('the library has no recordings to export');
        }
        const progress = createProgress(ids.length, Boolean(process.stderr.isTTY) && !values.json);
        try {
          return await services.exportRecordings(ids, {
            format,
            outDir,
            embedImages: values['embed-images'],
            overwrite: values.overwrite,
            skipDamaged: values['skip-damaged'],
            // --all: a recording without steps (no input recorded) is skipped with a notice
            skipEmpty: values.all ?? false,
            allowPii: values['allow-pii'] ?? false,
            appVersion: APP_VERSION,
            onProgress: (p) => progress.update(p.done, `${p.recordingId.slice(0, 8)} ${p.phase}`),
          });
        } finally {
          progress.finish();
        }
      },
      { readOnly: true },
    ); // reads the library only: works on a read-only one
    const results = run.recordings;
    if (values.json) {
      outJson({ format, out: outDir, recordings: results, skipped: run.skipped });
      return 0;
    }
    for (const s of run.skipped) {
      out(`skipped ${s.id}: [${s.code}] ${s.message}`);
    }
    for (const r of results) {
      for (const w of r.warnings) {
        out(`warning: ${r.id.slice(0, 8)} ${w}`);
      }
    }
    const steps = results.reduce((n, r) => n + r.steps, 0);
    out(
      `exported ${results.length} recording(s), ${steps} steps, as ${format} to ${outDir}` +
        skippedSummary(run.skipped),
    );
    return 0;
  },
});

// " (1 without steps and 2 damaged skipped)": what the run left out, by kind.
function skippedSummary(skipped: readonly { code: string }[]): string {
  const empty = skipped.filter((s) => s.code === 'NO_STEPS').length;
  const damaged = skipped.length - empty;
  const parts = [
    ...(empty ? [`${empty} without steps`] : []),
    ...(damaged ? [`${damaged} damaged`] : []),
  ];
  return parts.length ? ` (${parts.join(' and ')} skipped)` : '';
}
