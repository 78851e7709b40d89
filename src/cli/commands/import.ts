// `cua-annotator import <folder...>`: AgentNet Tool recording folders → the library.
import { importAgentNetFolder, type ImportResult } from '../../services/import/agentnet-import';
import { isAppError } from '../../shared/errors';
import { parseCommandArgs, UsageError } from '../args';
import type { Command } from '../command';
import { withLibraryOrCreate } from '../context';
import { APP_VERSION } from '../version';
import { createProgress, errLine, out, outJson } from '../output';

const HELP = `Usage: cua-annotator import <folder...> [--allow-duplicate] [--json] [--library DIR]

Imports AgentNet Tool recording folders (events.jsonl, metadata.json, task_name.json, the .mp4,
reduced_events_complete.jsonl / reduced_events_vis.jsonl, a11y/element/top_window streams).
Each folder is validated completely first and imported all-or-nothing: on any problem the error
names the file, the line and the problem, and the library is left exactly as it was.
A folder whose video is already in the library is refused (IMPORT_DUPLICATE, naming the
existing recording) unless --allow-duplicate, which imports it again under a distinct
episode name.

Options:
  --allow-duplicate  import a folder already in the library again (distinct episode name)
  --json          print one JSON object per folder for scripts
  --library DIR   library folder
  -h, --help      show this help

Exit code 2 when any folder failed (the others are still imported).`;

type Outcome =
  | { folder: string; ok: true; result: ImportResult }
  | { folder: string; ok: false; code: string; error: string; fix?: string };

/** The `import` command. */
export const importCommand: Command = {
  name: 'import',
  summary: 'import AgentNet Tool recording folders',
  help: HELP,
  run: async (argv) => {
    const { values, positionals } = parseCommandArgs(argv, {
      json: { type: 'boolean' },
      'allow-duplicate': { type: 'boolean' },
    });
    if (values.help) {
      out(HELP);
      return 0;
    }
    if (!positionals.length) {
      throw new UsageError('import needs at least one folder');
    }
    const outcomes: Outcome[] = [];
    const progress = createProgress(
      positionals.length,
      Boolean(process.stderr.isTTY) && !values.json,
    );
    await withLibraryOrCreate(values.library, async (lib) => {
      for (const [i, folder] of positionals.entries()) {
        progress.update(i, folder);
        try {
          const result = await importAgentNetFolder(lib, folder, {
            appVersion: APP_VERSION,
            allowDuplicate: values['allow-duplicate'],
          });
          outcomes.push({ folder, ok: true, result });
        } catch (e) {
          if (!isAppError(e) || positionals.length === 1) {
            progress.finish();
            throw e;
          }
          outcomes.push({
            folder,
            ok: false,
            code: e.code,
            error: e.message,
            ...(e.fix ? { fix: e.fix } : {}),
          });
        }
      }
      progress.update(positionals.length);
      progress.finish();
    });
    if (values.json) {
      outJson(outcomes.length === 1 ? outcomes[0] : outcomes);
    } else {
      for (const o of outcomes) {
        if (o.ok) {
          const r = o.result;
          out(
            `imported ${r.id}: ${r.events} events, ${r.steps} steps (${Math.round(r.timings.totalMs)} ms) from ${o.folder}`,
          );
          for (const w of r.warnings) {
            out(`  warning: ${w}`);
          }
        } else {
          errLine(`failed ${o.folder}: [${o.code}] ${o.error}`);
          if (o.fix) {
            errLine(`  fix: ${o.fix}`);
          }
        }
      }
    }
    return outcomes.every((o) => o.ok) ? 0 : 2;
  },
};
