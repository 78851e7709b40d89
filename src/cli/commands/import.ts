// `cua-annotator import <folder...>`: AgentNet Tool recording folders → the library.
import type { ImportResult } from '../../services/import/agentnet-import';
import type { KeyframeJobOutcome, KeyframeJobs } from '../../services/keyframes/keyframe-jobs';
import { isAppError } from '../../shared/errors';
import { UsageError } from '../args';
import { defineCommand, type Command } from '../command';
import type { Services } from '../../services/create-services';
import { withServices } from '../context';
import type { ApiEvent, ApiEvents } from '../../shared/contract';
import { APP_VERSION } from '../version';
import { createProgress, errLine, out, outJson, type Progress } from '../output';

const HELP = `Usage: cua-annotator import <folder...> [--allow-duplicate | --skip-existing]
                              [--no-keyframes] [--json] [--library DIR]

Imports AgentNet Tool recording folders (events.jsonl, metadata.json, task_name.json, the .mp4,
reduced_events_complete.jsonl / reduced_events_vis.jsonl, a11y/element/top_window streams).
Each folder is validated completely first and imported all-or-nothing: on any problem the error
names the file, the line and the problem, and the library is left exactly as it was.
A folder whose video is already in the library is refused (IMPORT_DUPLICATE, naming the
existing recording) unless --allow-duplicate, which imports it again under a distinct
episode name.
Then the keyframe of every step is computed and stored (the review page shows them at once;
exports and uploads reuse them); a keyframe failure (e.g. a full disk: DISK_FULL) is reported
with what to do, keeps the import and makes the exit code 2.

Options:
  --allow-duplicate  import a folder already in the library again (distinct episode name)
  --skip-existing    a folder already in the library is not an error: it is reported as
                     "already in the library as <id>" and skipped (running the same import
                     twice succeeds both times)
  --no-keyframes  import only; keyframes are computed when the recording is first opened
  --json          print one JSON object per folder for scripts
  --library DIR   library folder
  -h, --help      show this help

Exit code 2 when any folder failed (the others are still imported) or its keyframes could not be
computed (the import is kept; the review page's "Compute keyframes" tries again).`;

/** What the keyframe computation after an import stored, or why it failed. */
type KeyframesOutcome =
  | { ok: true; steps: number; files: number; diagnostics: string[]; ms: number }
  | { ok: false; code: string; error: string; fix?: string };

type Outcome =
  | { folder: string; ok: true; result: ImportResult; keyframes?: KeyframesOutcome }
  | { folder: string; ok: true; skipped: { existingId: string } }
  | { folder: string; ok: false; code: string; error: string; fix?: string };

/** The `import` command. */
export const importCommand: Command = defineCommand({
  name: 'import',
  summary: 'import AgentNet Tool recording folders',
  help: HELP,
  options: {
    json: { type: 'boolean' },
    'allow-duplicate': { type: 'boolean' },
    'no-keyframes': { type: 'boolean' },
    'skip-existing': { type: 'boolean' },
  },
  args: { atLeast: 1, usage: 'import needs at least one folder' },
  run: async ({ values, positionals }) => {
    if (values['skip-existing'] && values['allow-duplicate']) {
      throw new UsageError('--skip-existing and --allow-duplicate contradict each other: give one');
    }
    const outcomes: Outcome[] = [];
    const progress = createProgress(
      positionals.length,
      Boolean(process.stderr.isTTY) && !values.json,
    );
    let keyframes: ImportKeyframes | null = null;
    const run = async (services: Services) => {
      const { keyframeJobs } = services;
      // keyframes are computed in the background (the services' job runner) while the next
      // folder imports
      keyframes = values['no-keyframes'] ? null : new ImportKeyframes(keyframeJobs, !values.json);
      for (const [i, folder] of positionals.entries()) {
        progress.update(i, folder);
        try {
          const result = await services.importFolder(folder, {
            appVersion: APP_VERSION,
            allowDuplicate: values['allow-duplicate'],
            ...(keyframes ? { keyframes } : {}),
          });
          outcomes.push({ folder, ok: true, result });
        } catch (e) {
          if (values['skip-existing'] && isAppError(e, 'IMPORT_DUPLICATE')) {
            const existing = e.details?.existingId;
            const existingId = typeof existing === 'string' ? existing : '?';
            outcomes.push({ folder, ok: true, skipped: { existingId } });
            continue;
          }
          if (!isAppError(e) || positionals.length === 1) {
            progress.finish();
            throw e; // closing the services cancels the keyframes under way
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
      await keyframes?.finish(outcomes);
    };
    await withServices(values.library, run, {
      create: true,
      services: {
        emit: (event, payload) => keyframes?.onEvent(event, payload),
        log: () => undefined, // keyframe failures are reported with the import's outcome
      },
    });
    if (values.json) {
      outJson(outcomes.length === 1 ? outcomes[0] : outcomes);
    } else {
      for (const o of outcomes) {
        if (o.ok && 'skipped' in o) {
          out(`skipped ${o.folder}: already in the library as ${o.skipped.existingId}`);
        } else if (o.ok) {
          const r = o.result;
          out(
            `imported ${r.id}: ${r.events} events, ${r.steps} steps (${Math.round(r.timings.totalMs)} ms) from ${o.folder}`,
          );
          for (const w of r.warnings) {
            out(`  warning: ${w}`);
          }
          const k = o.keyframes;
          if (k?.ok) {
            out(`  keyframes: ${k.steps} steps, ${k.files} images (${Math.round(k.ms)} ms)`);
            for (const d of k.diagnostics) {
              out(`  keyframe warning: ${d}`);
            }
          } else if (k) {
            errLine(
              `  keyframes failed: [${k.code}] ${k.error} (the import is kept; the review page offers "Compute keyframes")`,
            );
            if (k.fix) {
              errLine(`  fix: ${k.fix}`);
            }
          }
        } else {
          errLine(`failed ${o.folder}: [${o.code}] ${o.error}`);
          if (o.fix) {
            errLine(`  fix: ${o.fix}`);
          }
        }
      }
    }
    return outcomes.every((o) => o.ok && ('skipped' in o || o.keyframes?.ok !== false)) ? 0 : 2;
  },
});

// The keyframes of the imported recordings: queued by the import as each recording lands, then
// awaited with a progress bar; each outcome joins its import's (a failure keeps the import).
class ImportKeyframes {
  private readonly pending = new Map<
    string,
    { started: number; done: Promise<KeyframeJobOutcome> }
  >();
  private progress: Progress | null = null;
  private finished = 0;

  constructor(
    private readonly jobs: KeyframeJobs,
    private readonly showProgress: boolean,
  ) {}

  /** An event of the services: keyframe progress moves the bar. */
  onEvent(event: ApiEvent, payload: unknown): void {
    if (event === 'keyframes:progress') {
      const p = payload as ApiEvents['keyframes:progress'];
      this.progress?.update(this.finished, `keyframes ${p.phase}`);
    }
  }

  enqueue(recordingId: string): void {
    this.pending.set(recordingId, {
      started: performance.now(),
      done: this.jobs.enqueue(recordingId),
    });
  }

  async finish(outcomes: Outcome[]): Promise<void> {
    if (this.pending.size) {
      this.progress = createProgress(
        this.pending.size,
        Boolean(process.stderr.isTTY) && this.showProgress,
      );
    }
    try {
      for (const o of outcomes) {
        const job = o.ok && 'result' in o ? this.pending.get(o.result.id) : undefined;
        if (!o.ok || !('result' in o) || !job) {
          continue;
        }
        const r = await job.done;
        this.finished += 1;
        this.progress?.update(this.finished, 'keyframes');
        o.keyframes =
          r.state === 'done'
            ? { ok: true, ...r.result, ms: performance.now() - job.started }
            : r.state === 'failed'
              ? {
                  ok: false,
                  code: r.error.code,
                  error: r.error.message,
                  ...(r.error.fix ? { fix: r.error.fix } : {}),
                }
              : { ok: false, code: 'ABORTED', error: 'cancelled' };
      }
    } finally {
      this.progress?.finish();
    }
  }
}
