// `tasks`: the task hub from the command line (docs/team-mode.md §16): list the open tasks of
// this OS, claim, release, report infeasible; admins import a task file (a dry run first).
import {
  claimHubTask,
  hostTaskPlatform,
  importHubTasks,
  listHubTasks,
  callHubTasks,
} from '../../services/create-services';
import type { HubTask } from '../../shared/contract/hub';
import { isAppError } from '../../shared/errors';
import { TASK_PLATFORMS, TASK_STATUSES, type TaskPlatform } from '../../shared/tasks-file';
import { parseCommandArgs, UsageError } from '../args';
import type { Command } from '../command';
import { withServices } from '../context';
import { errLine, out, outJson } from '../output';

const HELP = `Usage: cua-annotator tasks [--platform P|--all-platforms] [--status S] [--json] [--library DIR]
       cua-annotator tasks claim ID [--json]
       cua-annotator tasks release ID [--json]
       cua-annotator tasks infeasible ID --reason TEXT [--json]
       cua-annotator tasks show ID [--json]
       cua-annotator tasks import FILE [--dry-run | --confirm] [--format jsonl|csv] [--json]
       cua-annotator tasks close|reopen ID [--json]
       cua-annotator tasks settings [--claims-per-task N] [--claims-per-person N]
                                    [--claim-minutes N] [--infeasible-reports N] [--json]

The team hub's tasks, through this library's sign-in (cua-annotator login).

tasks              the open tasks for this OS (and those for any OS), fewest recordings first:
                   --json {"tasks":[{"id","instruction","platform","status","claimedBy",
                   "accepted","target",…}]}. --platform ${TASK_PLATFORMS.join('|')} for
                   another OS, --all-platforms for every one, --status
                   ${[...TASK_STATUSES, 'all'].join('|')} (default open).
tasks claim ID     reserves the task for you until the claim expires (claiming again renews
                   it); a task held by as many people as it takes answers claimed: false.
                   --json {"claimed","task","expiresAt"}; exit code 2 when not claimed.
                   Then record it:
                   cua-annotator record --task-id ID (the instruction comes from the task).
tasks release ID   gives your claim back.
tasks infeasible ID --reason TEXT
                   reports that the task cannot be done; enough reports (a hub setting) set it
                   aside until an admin reopens or closes it.
tasks show ID      one task with its open infeasible reports (who, why).
tasks import FILE  (admins) adds the tasks of a JSONL file (one JSON object per line) or a CSV
                   file (a header row; RFC 4180 quoting): fields instruction (required),
                   description, domain (or category), app (or website), url, platform
                   (${TASK_PLATFORMS.join(', ')}; default any), target (accepted recordings
                   wanted; default 1), tags (a JSON list, or "a;b"). A task whose instruction
                   matches one on the hub (or an earlier line) — ignoring case and spacing — is
                   a duplicate and refused. --dry-run checks every line and writes nothing:
                   {"added","duplicates","errors":[{"line","message"}]}. Without it the tasks
                   are added, duplicates left out; a file with bad lines writes nothing
                   (HUB_TASK_FILE_INVALID, each bad line on stderr) unless --confirm says to
                   add the good lines and leave the bad ones out.
tasks close ID     (admins) no more recordings: its claims end. tasks reopen ID: open again
                   (an infeasible task's reports are cleared).
tasks settings     (admins) prints the task settings, or changes those given: people per
                   task (default 1), tasks per person (3), claim length in minutes (120),
                   infeasible reports that set a task aside (3).

Options:
  --json           print JSON
  --library DIR    library folder
  -h, --help       show this help`;

// the hub calls need the library's sign-in only: a signed-in library may hold no recording yet
function onLibrary<T>(
  library: string | undefined,
  fn: Parameters<typeof withServices<T>>[1],
): Promise<T> {
  return withServices(library, fn, { create: true });
}

function taskId(arg: string | undefined, what: string): number {
  if (!arg || !/^[1-9][0-9]{0,15}$/.test(arg)) {
    throw new UsageError(`tasks ${what} ID: the task's number (got "${arg ?? ''}")`);
  }
  return Number(arg);
}

function taskLine(t: HubTask): string {
  const claims = t.claimedBy.length ? ` claimed by ${t.claimedBy.join(', ')}` : '';
  const mine = t.myClaimExpiresAtMs
    ? ` (yours until ${new Date(t.myClaimExpiresAtMs).toISOString()})`
    : '';
  return (
    `${String(t.id).padStart(6)}  ${t.platform.padEnd(6)} ${t.status.padEnd(10)} ` +
    `${t.accepted}/${t.target} accepted, ${t.recorded} recorded${claims}${mine}\n        ` +
    t.instruction.replace(/\s+/g, ' ')
  );
}

function briefTask(t: HubTask) {
  return {
    id: t.id,
    instruction: t.instruction,
    description: t.description,
    domain: t.domain,
    app: t.app,
    url: t.url,
    platform: t.platform,
    status: t.status,
    tags: t.tags,
    claimedBy: t.claimedBy,
    recorded: t.recorded,
    accepted: t.accepted,
    target: t.target,
    myClaimExpiresAt: t.myClaimExpiresAtMs ? new Date(t.myClaimExpiresAtMs).toISOString() : null,
  };
}

/** The `tasks` command. */
export const tasksCommand: Command = {
  name: 'tasks',
  summary: 'the team hub’s tasks: list, claim, release, infeasible; import (admins)',
  help: HELP,
  run: async (argv) => {
    const { values, positionals } = parseCommandArgs(argv, {
      platform: { type: 'string' },
      'all-platforms': { type: 'boolean' },
      status: { type: 'string' },
      reason: { type: 'string' },
      'dry-run': { type: 'boolean' },
      confirm: { type: 'boolean' },
      'claims-per-task': { type: 'string' },
      'claims-per-person': { type: 'string' },
      'claim-minutes': { type: 'string' },
      'infeasible-reports': { type: 'string' },
      format: { type: 'string' },
      json: { type: 'boolean' },
    });
    if (values.help) {
      out(HELP);
      return 0;
    }
    const [sub, ...rest] = positionals;
    if (sub === undefined || sub === 'list') {
      if (rest.length) {
        throw new UsageError('tasks lists the tasks: it takes no arguments');
      }
      if (values.platform !== undefined && !TASK_PLATFORMS.includes(values.platform as never)) {
        throw new UsageError(
          `--platform is one of ${TASK_PLATFORMS.join(', ')} (got "${values.platform}")`,
        );
      }
      const statuses = [...TASK_STATUSES, 'all'] as const;
      if (values.status !== undefined && !statuses.includes(values.status as never)) {
        throw new UsageError(`--status is one of ${statuses.join(', ')} (got "${values.status}")`);
      }
      const platform = values['all-platforms']
        ? undefined
        : ((values.platform as TaskPlatform | undefined) ?? hostTaskPlatform());
      const { tasks } = await onLibrary(values.library, (services) =>
        listHubTasks(services.lib, {
          ...(platform ? { platform } : {}),
          ...(values.status ? { status: values.status as (typeof statuses)[number] } : {}),
        }),
      );
      if (values.json) {
        outJson({ tasks: tasks.map(briefTask) });
      } else if (!tasks.length) {
        out(`no ${values.status ?? 'open'} tasks${platform ? ` for ${platform}` : ''}`);
      } else {
        for (const t of tasks) {
          out(taskLine(t));
        }
      }
      return 0;
    }
    if (sub === 'claim' || sub === 'release') {
      if (rest.length !== 1) {
        throw new UsageError(`tasks ${sub} ID`);
      }
      const id = taskId(rest[0], sub);
      if (sub === 'release') {
        const r = await onLibrary(values.library, (services) =>
          callHubTasks(services.lib, 'tasks:release', { id }),
        );
        if (values.json) {
          outJson(r);
        } else {
          out(r.released ? `released task ${id}` : `you held no claim on task ${id}`);
        }
        return 0;
      }
      const r = await onLibrary(values.library, (services) => claimHubTask(services.lib, id));
      const expiresAt = r.expiresAtMs === null ? null : new Date(r.expiresAtMs).toISOString();
      if (values.json) {
        outJson({ claimed: r.claimed, task: briefTask(r.task), expiresAt });
      } else if (r.claimed) {
        out(
          `claimed task ${id} until ${expiresAt}: "${r.task.instruction}"\n` +
            `record it with: cua-annotator record --task-id ${id}`,
        );
      } else {
        out(`task ${id} is held by ${r.task.claimedBy.join(', ')}: pick another one`);
      }
      return r.claimed ? 0 : 2;
    }
    if (sub === 'infeasible') {
      if (rest.length !== 1) {
        throw new UsageError('tasks infeasible ID --reason TEXT');
      }
      const id = taskId(rest[0], sub);
      if (!values.reason?.trim()) {
        throw new UsageError('--reason TEXT is required: say what stops the task');
      }
      const r = await onLibrary(values.library, (services) =>
        callHubTasks(services.lib, 'tasks:infeasible', { id, reason: values.reason! }),
      );
      if (values.json) {
        outJson({ task: briefTask(r.task), reports: r.reports, setAside: r.setAside });
      } else {
        out(
          `reported task ${id} infeasible (${r.reports} report(s))` +
            (r.setAside ? '; it is set aside for an admin' : ''),
        );
      }
      return 0;
    }
    if (sub === 'show' || sub === 'close' || sub === 'reopen') {
      if (rest.length !== 1) {
        throw new UsageError(`tasks ${sub} ID`);
      }
      const id = taskId(rest[0], sub);
      if (sub === 'show') {
        const r = await onLibrary(values.library, (services) =>
          callHubTasks(services.lib, 'tasks:get', { id }),
        );
        if (values.json) {
          outJson({ task: briefTask(r.task), reports: r.reports });
        } else {
          out(taskLine(r.task));
          for (const x of r.reports) {
            out(`        infeasible (${x.user}, ${new Date(x.atMs).toISOString()}): ${x.reason}`);
          }
        }
        return 0;
      }
      const r = await onLibrary(values.library, (services) =>
        callHubTasks(services.lib, sub === 'close' ? 'tasks:close' : 'tasks:reopen', { id }),
      );
      if (values.json) {
        outJson({ task: briefTask(r.task) });
      } else {
        out(`task ${id} is ${r.task.status}`);
      }
      return 0;
    }
    if (sub === 'settings') {
      if (rest.length) {
        throw new UsageError('tasks settings takes options only');
      }
      const change: Record<string, number> = {};
      for (const [flag, key] of [
        ['claims-per-task', 'claimsPerTask'],
        ['claims-per-person', 'claimsPerPerson'],
        ['claim-minutes', 'claimMinutes'],
        ['infeasible-reports', 'infeasibleReports'],
      ] as const) {
        const value = values[flag];
        if (value !== undefined) {
          if (!/^[1-9][0-9]{0,5}$/.test(value)) {
            throw new UsageError(`--${flag} is a whole number from 1 (got "${value}")`);
          }
          change[key] = Number(value);
        }
      }
      const r = await onLibrary(values.library, (services) =>
        callHubTasks(services.lib, 'tasks:settings', change),
      );
      if (values.json) {
        outJson(r);
      } else {
        out(
          `${r.claimsPerTask} person(s) per task, ${r.claimsPerPerson} task(s) per person, ` +
            `claims last ${r.claimMinutes} min, ${r.infeasibleReports} infeasible report(s) ` +
            'set a task aside',
        );
      }
      return 0;
    }
    if (sub === 'import') {
      if (rest.length !== 1) {
        throw new UsageError('tasks import FILE [--dry-run]');
      }
      if (values['dry-run'] && values.confirm) {
        throw new UsageError('--dry-run writes nothing: --confirm goes with the import itself');
      }
      if (values.format !== undefined && values.format !== 'jsonl' && values.format !== 'csv') {
        throw new UsageError(`--format is jsonl or csv (got "${values.format}")`);
      }
      const r = await onLibrary(values.library, (services) =>
        importHubTasks(services.lib, rest[0]!, {
          dryRun: values['dry-run'] ?? false,
          confirm: values.confirm ?? false,
          ...(values.format ? { format: values.format as 'jsonl' | 'csv' } : {}),
        }),
      ).catch((e: unknown) => {
        // the refused file's bad lines, each on its own line, before the error itself
        if (isAppError(e, 'HUB_TASK_FILE_INVALID') && Array.isArray(e.details?.errors)) {
          for (const x of e.details.errors as { line: number; message: string }[]) {
            errLine(`line ${x.line}: ${x.message}`);
          }
        }
        throw e;
      });
      if (values.json) {
        outJson({
          dryRun: r.dryRun,
          added: r.added,
          duplicates: r.duplicates,
          duplicateLines: r.duplicateLines,
          errors: r.errors,
          ids: r.ids,
        });
      } else {
        for (const e of r.errors) {
          errLine(`line ${e.line}: ${e.message}`);
        }
        out(
          `${r.dryRun ? 'would add' : 'added'} ${r.added} task(s); ${r.duplicates} duplicate(s) ` +
            `and ${r.errors.length} bad line(s) ${r.dryRun ? 'would be ' : ''}left out` +
            (r.dryRun ? ' (dry run: nothing written)' : ''),
        );
      }
      return 0;
    }
    throw new UsageError(
      `unknown tasks command "${sub}": tasks [list] | claim ID | release ID | infeasible ID | ` +
        'show ID | import FILE | close ID | reopen ID | settings',
    );
  },
};
