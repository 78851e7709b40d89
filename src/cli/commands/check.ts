// `cua-annotator check <id>`: the checks before submit (docs/quality.md); exit 1 when a problem
// is an error, 0 otherwise (warnings allowed).
import { CHECK_CODES, type CheckProblem } from '../../shared/domain';
import { LONG_IDLE_MS } from '../../pipeline/quality/check';
import { defineCommand, unwrapResult, type Command } from '../command';
import { withServices } from '../context';
import { out, outJson } from '../output';

const HELP = `Usage: cua-annotator check <id> [--json] [--library DIR]

Checks one recording before it is submitted (accepted in review) or uploaded: task text
present; at least one action; a current keyframe for every step and for terminate; action
points inside the recorded screen; no step starting before the video or after its end; no
unlabelled steps when the settings require labels (requireLabels); no idle stretch longer than
${LONG_IDLE_MS / 1000} s between steps; no step repeating the one before it exactly (typing, keys, hotkeys,
scrolling and waits may repeat); a final terminate step; privacy findings (open card, IBAN or
secret findings are errors, other kinds warnings). The steps are the edited ones. Nothing is
changed. <id> may be a unique prefix of the id (at least 4 characters).

Each problem has a code, the step it concerns (- : the whole recording), a message, the fix
and a severity: errors block, warnings do not.
Codes: ${CHECK_CODES.join(', ')}.

Output: one line per problem and its fix, then "ok" or "not ok". With --json:
  {"ok", "problems": [{"code", "stepIndex", "message", "fix", "severity"}]}

Exit code 0 when no problem is an error (warnings allowed), 1 when one is; 2 when the check
itself could not run (e.g. an unknown id).

Options:
  --json          print JSON for scripts
  --library DIR   library folder
  -h, --help      show this help`;

/** The `check` command. */
export const checkCommand: Command = defineCommand({
  name: 'check',
  summary: 'check a recording before submit or upload (codes, steps, fixes)',
  help: HELP,
  options: { json: { type: 'boolean' } },
  args: { exactly: 1, usage: 'check takes exactly one recording id' },
  run: async ({ values, positionals }) => {
    const idOrPrefix = positionals[0] ?? '';
    const { id, ok, problems } = await withServices(
      values.library,
      async (services) => {
        const view = services.showRecording(idOrPrefix);
        const result = await services.dispatch('recordings:check', { id: view.id });
        const value = unwrapResult(result) as { ok: boolean; problems: CheckProblem[] };
        return { id: view.id, ...value };
      },
      { readOnly: true },
    );
    if (values.json) {
      outJson({
        ok,
        problems: problems.map((p) => ({
          code: p.code,
          stepIndex: p.stepIndex,
          message: p.message,
          fix: p.fix,
          severity: p.severity,
        })),
      });
      return ok ? 0 : 1;
    }
    for (const p of problems) {
      out(
        `${p.severity.padEnd(7)} ${p.code.padEnd(21)} step ${(p.stepIndex === null ? '-' : String(p.stepIndex)).padEnd(4)} ${p.message}`,
      );
      out(`${' '.repeat(8)}fix: ${p.fix}`);
    }
    const errors = problems.filter((p) => p.severity === 'error').length;
    const warnings = problems.length - errors;
    out(
      `${ok ? 'ok' : 'not ok'}: ${id}: ${errors} error${errors === 1 ? '' : 's'}, ` +
        `${warnings} warning${warnings === 1 ? '' : 's'}`,
    );
    return ok ? 0 : 1;
  },
});
