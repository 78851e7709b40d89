// `cua-annotator replay <id>`: drives a recording's steps (edits applied) on a display through
// the nut-js driver and scores them against the recording (docs/replay.md). Exit 0 when every
// result matches, 1 when one diverges, 3 when the replay stopped early (user input, Ctrl+C).
import type { ReplayReport, ReplayStepResult } from '../../shared/domain';
import { UsageError } from '../args';
import { defineCommand, type Command } from '../command';
import { withServices } from '../context';
import { createProgress, errLine, out, outJson } from '../output';

const HELP = `Usage: cua-annotator replay <id> [--display :N] [--speed X] [--live] [--json]
                             [--library DIR]

Replays one recording's steps (with the review's edits applied) on a desktop and scores how
faithfully they reproduce it. The desktop must show the recording's start state (e.g. a fresh
instance of the application); replay drives its mouse and keyboard through nut-js in a child
process. Before each step it compares the live screen with the step's keyframe (gray
thumbnails 160 px wide, 4×4 blocks, a block changed above 10/255, a match when at most 2 % of
the blocks changed; the pointers are masked) and, where the recording has one, the element
under the action point (accessibility role and name) with the recorded one; after the last
step it compares the end state with the final keyframe. Coordinates scale to the replay
screen. The screenshots of divergent steps are saved beside the report in
<recording>/replay/<run id>/.

score = the share of results (each step, then the end state) whose screen and element both
match; results not reached (a stopped replay) count as not matching.

Replay stops at once when the pointer is moved by anyone but itself (the user's own input)
or on Ctrl+C, and reports where it stopped. By default it refuses to drive the display this
command runs on ($DISPLAY): give --display :N of a virtual display, or --live.

A step typed into a password field (stored masked, write('•••')) cannot be replayed: it is
shown as MASKED ("masked": true in --json), not driven, not compared, and left out of the score.

Output: one line per step (index, ok/DIVERGES/MASKED, screen difference, element), then the
score and the first divergent step. With --json: the report
  {"id", "runId", "score", "firstDivergent", "stepCount", "stopped",
   "steps": [{"index", "kind", "screenDiff", "elementMatch", "ok", "masked", "note",
              "screenshot", ...}]}

Exit code 0 when every result matches, 1 when one diverges, 3 when the replay was stopped
early, 2 when it could not run (unknown id, no display, driver failure).

Options:
  --display :N    X display to drive (default $DISPLAY, which needs --live)
  --speed X       divide the recorded pauses between steps by X (default 1; 0 < X ≤ 100)
  --live          allow driving the display you are working on
  --no-elements   do not compare accessibility elements
  --json          print the report as JSON
  --library DIR   library folder
  -h, --help      show this help`;

function pct(v: number | null): string {
  return v === null ? '   -  ' : `${(v * 100).toFixed(1).padStart(5)}%`;
}

function line(r: ReplayStepResult): string {
  const name = r.kind === 'end' ? 'end ' : String(r.index).padStart(4);
  const element =
    r.elementMatch === null
      ? ''
      : r.elementMatch
        ? ` element ${r.recordedElement?.controlType} "${r.recordedElement?.title}"`
        : ` element ${r.recordedElement?.controlType} "${r.recordedElement?.title}" ≠ live ` +
          (r.liveElement ? `${r.liveElement.controlType} "${r.liveElement.title}"` : 'none');
  const note = r.note ? ` (${r.note})` : '';
  const verdict = r.masked ? 'MASKED  ' : r.ok ? 'ok      ' : 'DIVERGES';
  return `${name} ${verdict} screen ${pct(r.screenDiff)}${element}${note}`;
}

/** The `replay` command. */
export const replayCommand: Command = defineCommand({
  name: 'replay',
  summary: 'replay a recording on a (virtual) display and score it step by step',
  help: HELP,
  options: {
    json: { type: 'boolean' },
    display: { type: 'string' },
    speed: { type: 'string' },
    live: { type: 'boolean' },
    'no-elements': { type: 'boolean' },
  },
  args: { exactly: 1, usage: 'replay takes exactly one recording id' },
  run: async ({ values, positionals }) => {
    let speed = 1;
    if (values.speed !== undefined) {
      speed = Number(values.speed);
      if (!(Number.isFinite(speed) && speed > 0 && speed <= 100)) {
        throw new UsageError(`--speed must be a number in (0, 100], got '${values.speed}'`);
      }
    }
    const controller = new AbortController();
    const onSigint = () => controller.abort('cancelled');
    process.on('SIGINT', onSigint);
    let report: ReplayReport;
    try {
      report = await withServices(values.library, async (services) => {
        const view = services.showRecording(positionals[0]!);
        const progress = createProgress(
          view.steps.length + 1,
          !values.json && process.stderr.isTTY,
        );
        return await services
          .replayRecording(view.id, {
            display: values.display,
            live: values.live === true,
            speed,
            elements: values['no-elements'] !== true,
            signal: controller.signal,
            onResult: (r, total) => {
              progress.update(Math.min(total, r.index + 1), r.ok ? '' : `step ${r.index} diverges`);
            },
          })
          .finally(() => progress.finish());
      });
    } finally {
      process.off('SIGINT', onSigint);
    }
    const code = report.stopped ? 3 : report.firstDivergent === null ? 0 : 1;
    if (values.json) {
      outJson(report);
      return code;
    }
    for (const r of report.steps) {
      out(line(r));
      if (r.screenshot) {
        out(`     screenshot: ${r.screenshot}  keyframe: ${r.keyframe ?? '-'}`);
      }
    }
    if (report.stopped) {
      errLine(`replay stopped at step ${report.stopped.stepIndex}: ${report.stopped.message}`);
    }
    // masked steps (typed into a password field) are not replayed and not scored
    const masked = report.steps.filter((s) => s.masked === true).length;
    out(
      `score ${report.score.toFixed(3)} (${report.steps.filter((s) => s.ok).length}/` +
        `${report.stepCount + 1 - masked} results match` +
        `${masked ? `; ${masked} masked step${masked === 1 ? '' : 's'} not replayed or scored` : ''}` +
        '); first divergent: ' +
        `${report.firstDivergent === null ? 'none' : report.firstDivergent}; ` +
        `report: replay/${report.runId}/report.json`,
    );
    return code;
  },
});
