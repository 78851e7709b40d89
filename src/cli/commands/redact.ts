// `cua-annotator redact <id>`: box redactions for scripted review (issue 14, item 3): add one
// (an `edits:apply` of a `redact-box` edit), list them, or undo one.
import { UsageError } from '../args';
import { defineCommand, unwrapResult, type Command } from '../command';
import { withServices } from '../context';
import { errLine, out, outJson } from '../output';

const HELP = `Usage: cua-annotator redact <id> --box X,Y,W,H --from T --to T [--force] [--json]
       cua-annotator redact <id> --list [--json]
       cua-annotator redact <id> --undo EDIT_ID [--force] [--json]

Blacks out a box of the video over a time range in every export and upload (keyframes, the
exported video, the upload's video); the library's own video never changes. The redaction is an
edit of the recording's edit log: undo it with --undo (only the latest edit can be undone).
Intervals an excluded window had focus are blanked whole without any edit.
<id> may be a unique prefix of the id (at least 4 characters).

Options:
  --box X,Y,W,H   the box in recording pixels (the video's pixels, top-left 0,0), integers
  --from T        start of the range on the video: milliseconds (1500 or 1500ms), seconds (1.5s)
                  or a clock time (0:30, 1:02.5, 1:00:00); a bare number is milliseconds
  --to T          end of the range (included), same forms
  --list          list the box redactions (edit id, state, range, box)
  --undo EDIT_ID  undo box redaction EDIT_ID (it must be the latest edit)
  --force         edit an accepted recording (it goes back to review)
  --json          print JSON for scripts: {"redaction": {...}} or {"redactions": [...]}
  --library DIR   library folder
  -h, --help      show this help

Times are on the video (0 = its first frame); --json reports startMs/endMs on the recording
clock as the edit log stores them.`;

/** Parses `X,Y,W,H` (non-negative integers, W and H ≥ 1). */
export function parseBox(text: string): { x: number; y: number; width: number; height: number } {
  const parts = text.split(',').map((p) => p.trim());
  const nums = parts.map((p) => (/^\d+$/.test(p) ? Number(p) : NaN));
  if (nums.length !== 4 || nums.some((n) => !Number.isSafeInteger(n))) {
    throw new UsageError(`--box must be X,Y,W,H in integer pixels, got ${JSON.stringify(text)}`);
  }
  const [x, y, width, height] = nums as [number, number, number, number];
  if (width < 1 || height < 1) {
    throw new UsageError(`--box width and height must be at least 1, got ${JSON.stringify(text)}`);
  }
  return { x, y, width, height };
}

/** Parses a time on the video: `1500`, `1500ms` (milliseconds), `1.5s` (seconds) or a clock
 * time `0:30`, `1:02.5`, `1:00:00` (minutes:seconds, hours:minutes:seconds); ms out. */
export function parseVideoTime(flag: string, text: string): number {
  const t = text.trim();
  const clock = /^(?:(\d+):)?(\d+):(\d{1,2}(?:\.\d+)?)$/.exec(t);
  if (clock) {
    const [, h, m, sec] = clock;
    if (Number(sec) >= 60 || (h !== undefined && Number(m) >= 60)) {
      throw new UsageError(
        `${flag}: ${JSON.stringify(text)} is not a clock time (minutes and seconds below 60)`,
      );
    }
    const seconds = Number(h ?? 0) * 3600 + Number(m) * 60 + Number(sec);
    return Math.round(seconds * 1000 * 1000) / 1000;
  }
  const m = /^(\d+(?:\.\d+)?)(ms|s)?$/.exec(t);
  if (!m) {
    throw new UsageError(
      `${flag} must be milliseconds (1500, 1500ms), seconds (1.5s) or a clock time (0:30, ` +
        `1:02.5), got ${JSON.stringify(text)}`,
    );
  }
  const n = Number(m[1]);
  return m[2] === 's' ? Math.round(n * 1000 * 1000) / 1000 : n;
}

/** True when a time was given as a bare number (read as milliseconds). */
function isBareNumber(text: string): boolean {
  return /^\d+(?:\.\d+)?$/.test(text.trim());
}

type RedactionView = {
  editId: number;
  state: string;
  startMs: number;
  endMs: number;
  box: { x: number; y: number; width: number; height: number };
};

function line(r: RedactionView, videoStartMs: number): string {
  const s = (ms: number) => `${((ms - videoStartMs) / 1000).toFixed(3)} s`;
  return (
    `  ${String(r.editId).padEnd(6)} ${r.state.padEnd(7)} ${s(r.startMs)} – ${s(r.endMs)}  ` +
    `box ${r.box.x},${r.box.y},${r.box.width},${r.box.height}`
  );
}

/** The `redact` command. */
export const redactCommand: Command = defineCommand({
  name: 'redact',
  summary: 'black out a box of the video over a time range in every export (undoable edit)',
  help: HELP,
  options: {
    json: { type: 'boolean' },
    box: { type: 'string' },
    from: { type: 'string' },
    to: { type: 'string' },
    list: { type: 'boolean' },
    undo: { type: 'string' },
    force: { type: 'boolean' },
  },
  args: { exactly: 1, usage: 'redact takes exactly one recording id' },
  run: async ({ values, positionals }) => {
    const idOrPrefix = positionals[0] ?? '';
    const modes = [values.list, values.undo !== undefined, values.box !== undefined].filter(
      Boolean,
    );
    if (modes.length !== 1) {
      throw new UsageError('redact takes one of --box (with --from and --to), --list or --undo');
    }
    return await withServices(values.library, async (services) => {
      const view = services.showRecording(idOrPrefix);
      const videoStartMs = view.video?.startMs ?? 0;
      if (values.list) {
        const list = await services.listBoxRedactions(view.id);
        if (values.json) {
          outJson({ redactions: list });
        } else if (!list.length) {
          out(`no box redactions in ${view.id}`);
        } else {
          out(`  ${'edit'.padEnd(6)} ${'state'.padEnd(7)} range (video time)`);
          list.forEach((r) => out(line(r, videoStartMs)));
        }
        return 0;
      }
      if (values.undo !== undefined) {
        if (!/^\d+$/.test(values.undo)) {
          throw new UsageError(`--undo takes an edit id, got ${JSON.stringify(values.undo)}`);
        }
        const { editId } = await services.undoBoxRedaction(view.id, Number(values.undo), {
          force: values.force ?? false,
        });
        if (values.json) {
          outJson({ undone: { editId } });
        } else {
          out(`undid box redaction ${editId} of ${view.id}`);
        }
        return 0;
      }
      if (values.from === undefined || values.to === undefined) {
        throw new UsageError('--box needs --from and --to');
      }
      const box = parseBox(values.box!);
      const fromMs = parseVideoTime('--from', values.from);
      const toMs = parseVideoTime('--to', values.to);
      for (const [flag, text, ms] of [
        ['--from', values.from, fromMs],
        ['--to', values.to, toMs],
      ] as const) {
        if (isBareNumber(text) && ms !== 0 && !values.json) {
          errLine(
            `note: ${flag} ${text} is read as ${text} ms (${(ms / 1000).toFixed(3)} s); ` +
              `write ${text}s for seconds`,
          );
        }
      }
      if (toMs < fromMs) {
        throw new UsageError(`--to (${values.to}) is before --from (${values.from})`);
      }
      const result = await services.dispatch('edits:apply', {
        id: view.id,
        edit: {
          op: 'redact-box',
          stepId: null,
          startMs: videoStartMs + fromMs,
          endMs: videoStartMs + toMs,
          box,
        },
        force: values.force ?? false,
      });
      unwrapResult(result);
      const added = (await services.listBoxRedactions(view.id)).at(-1)!;
      if (values.json) {
        outJson({ redaction: added });
      } else {
        out(`added box redaction ${added.editId} to ${view.id}:`);
        out(line(added, videoStartMs));
      }
      return 0;
    });
  },
});
