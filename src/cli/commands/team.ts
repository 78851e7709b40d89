// `submit`, `review next|verdict`, `sync`: the annotator's and the reviewer's side of the team
// hub (docs/team-mode.md §13), through the API token `login` stored beside the library.
// the team client, through the composition root like every service
import {
  listHubSubmissions,
  reviewNext,
  sendVerdict,
  submitToHub,
  syncFromHub,
} from '../../services/create-services';
import { HUB_GRADES, HUB_VERDICTS } from '../../shared/contract/hub';
import { parseCommandArgs, UsageError } from '../args';
import type { Command } from '../command';
import { withServices } from '../context';
import { errLine, out, outJson } from '../output';
import { APP_VERSION } from '../version';

const SUBMIT_HELP = `Usage: cua-annotator submit <id...> [--task-id ID] [--allow-pii] [--no-keyframes] [--json]
                            [--library DIR]

Submits recordings to the team hub this library is signed in to (cua-annotator login). For each:
the checks (as \`check\`) and the privacy policy (as \`upload\`: unresolved card/IBAN/secret
findings refuse with PII_UNRESOLVED unless --allow-pii) run first; the submission bundle (video,
raw data, steps with edits, keyframes, AgentNet exports, manifest.json) is staged in the library;
its files go straight to the hub's store through presigned URLs, streamed from disk; the hub
checks every file against the manifest (size, SHA-256) and registers the submission. A rerun
after an interruption sends only what is missing and registers nothing twice; a recording that
came back with "changes" and was edited is submitted as its next version.

Options:
  --task-id ID     link the recordings to this task of the hub first (an imported or older
                   recording); one made with record --task-id carries its task already. The
                   id goes with the submission and into the exports (AgentNet's task_id)
  --allow-pii      submit despite unresolved blocking PII findings (recorded)
  --no-keyframes   leave the keyframe images out of the bundle (no video decoding)
  --json           print {"submissions":[{"id","recording","version","status"}]}
  --library DIR    library folder
  -h, --help       show this help`;

const REVIEW_HELP = `Usage: cua-annotator review next [--json] [--library DIR]
       cua-annotator review verdict <recording-id> accept|reject|changes [--grade G]
                                   [--feedback TEXT] [--json] [--library DIR]

review next    takes the oldest waiting submission of the team hub (never your own) for you
               alone (a lease of 30 minutes; asking again hands back the one you hold),
               downloads it (each file checked against its manifest) into this library and
               prints it: {"submission":{"id","recording","annotator","task","version"}}, or
               {"submission":null} when nothing waits. Review it with every feature of the app.
               When no first review waits, it may hand out a second review of a submission
               another reviewer accepted (QA sampling; "qa": true): that verdict is compared
               with the first and changes nothing for the annotator.
review verdict sends accept, reject (both final) or changes (back to the annotator) with a
               grade (${HUB_GRADES.join(', ')}), feedback, and your edits of the recording made
               since it arrived. --json: {"verdict":{"id","recording","version","status","edits"}}
               (with "qa": true for a second review).`;

const SYNC_HELP = `Usage: cua-annotator sync [--all] [--json] [--library DIR]

Shows your submissions on the team hub with their status, the latest verdict's grade, feedback
and reviewer (--json: {"submissions":[{"id","recording","version","status","grade","feedback",
"reviewer","intake"}]}). A version the hub's intake refused (status intake-failed: files that do
not match the manifest, unresolved PII, check errors) is listed with each reason and its fix.
--all (admins): every submission with every verdict and its edit log.`;

/** The `submit` command. */
export const submitCommand: Command = {
  name: 'submit',
  summary: 'submit recordings to the team hub (checked, verified, resumable)',
  help: SUBMIT_HELP,
  run: async (argv) => {
    const { values, positionals } = parseCommandArgs(argv, {
      'allow-pii': { type: 'boolean' },
      'no-keyframes': { type: 'boolean' },
      'task-id': { type: 'string' },
      json: { type: 'boolean' },
    });
    if (values.help) {
      out(SUBMIT_HELP);
      return 0;
    }
    if (!positionals.length) {
      throw new UsageError('give the ids of the recordings to submit');
    }
    const taskId = values['task-id'];
    if (taskId !== undefined && !/^[1-9][0-9]{0,15}$/.test(taskId)) {
      throw new UsageError(`--task-id is a hub task's number (got "${taskId}")`);
    }
    const results = await withServices(values.library, (services) =>
      submitToHub(services.lib, positionals, {
        appVersion: APP_VERSION,
        allowPii: values['allow-pii'] ?? false,
        includeKeyframes: !values['no-keyframes'],
        ...(taskId === undefined ? {} : { taskId: Number(taskId) }),
        onWarning: (line) => errLine(`warning: ${line}`),
      }),
    );
    if (values.json) {
      outJson({
        submissions: results.map((r) => ({
          id: r.id,
          recording: r.recording,
          version: r.version,
          status: r.status,
        })),
      });
    } else {
      for (const r of results) {
        out(
          r.isNew
            ? `submitted ${r.recording.slice(0, 8)} as submission ${r.id} version ${r.version} ` +
                `(${r.filesSent} files sent, verified by the hub)`
            : `${r.recording.slice(0, 8)} is already submission ${r.id} version ${r.version} ` +
                `(${r.status}; ${r.filesSent} missing files sent)`,
        );
      }
    }
    return 0;
  },
};

/** The `review` command. */
export const reviewCommand: Command = {
  name: 'review',
  summary: 'take the next submission of the team hub; give a verdict',
  help: REVIEW_HELP,
  run: async (argv) => {
    const { values, positionals } = parseCommandArgs(argv, {
      grade: { type: 'string' },
      feedback: { type: 'string' },
      json: { type: 'boolean' },
    });
    if (values.help) {
      out(REVIEW_HELP);
      return 0;
    }
    const [sub, ...rest] = positionals;
    if (sub === 'next') {
      if (rest.length) {
        throw new UsageError('review next takes no arguments');
      }
      const s = await withServices(values.library, (services) => reviewNext(services.lib), {
        create: true,
      });
      const shown = s
        ? {
            id: s.id,
            recording: s.recording,
            annotator: s.annotator,
            task: s.task,
            version: s.version,
            // a second review of an accepted submission (QA sampling, docs/team-mode.md §19)
            ...(s.qa ? { qa: true } : {}),
          }
        : null;
      if (values.json) {
        outJson({ submission: shown });
      } else if (s) {
        out(
          `${s.isResumed ? 'still yours' : 'took'}: submission ${s.id} version ${s.version} by ` +
            `${s.annotator}, recording ${s.recording} ("${s.task}"), in this library; ` +
            `lease until ${new Date(s.leaseExpiresAtMs).toISOString()}`,
        );
        if (s.qa) {
          out(
            'a second review (QA sampling): another reviewer accepted it; your verdict is ' +
              'compared with theirs and changes nothing for the annotator',
          );
        }
      } else {
        out('nothing waits for review');
      }
      return 0;
    }
    if (sub === 'verdict') {
      const [recording, verdict, ...extra] = rest;
      if (!recording || !verdict || extra.length) {
        throw new UsageError('review verdict <recording-id> accept|reject|changes');
      }
      if (!(HUB_VERDICTS as readonly string[]).includes(verdict)) {
        throw new UsageError(`the verdict is one of ${HUB_VERDICTS.join(', ')} (got "${verdict}")`);
      }
      if (values.grade !== undefined && !(HUB_GRADES as readonly string[]).includes(values.grade)) {
        throw new UsageError(`--grade is one of ${HUB_GRADES.join(', ')} (got "${values.grade}")`);
      }
      const r = await withServices(values.library, (services) =>
        sendVerdict(services.lib, recording, {
          verdict: verdict as (typeof HUB_VERDICTS)[number],
          ...(values.grade ? { grade: values.grade as (typeof HUB_GRADES)[number] } : {}),
          ...(values.feedback !== undefined ? { feedback: values.feedback } : {}),
        }),
      );
      if (values.json) {
        outJson({ verdict: r });
      } else if (r.qa) {
        out(
          `second review of submission ${r.id} version ${r.version} recorded (${verdict}); ` +
            `it stays ${r.status} until an admin settles any disagreement`,
        );
      } else {
        out(
          `submission ${r.id} version ${r.version}: ${r.status} (${r.edits} edit(s) of yours sent)`,
        );
      }
      return 0;
    }
    throw new UsageError('review next | review verdict <recording-id> accept|reject|changes');
  },
};

/** The `sync` command. */
export const syncCommand: Command = {
  name: 'sync',
  summary: 'your submissions on the team hub: status, grade, feedback',
  help: SYNC_HELP,
  run: async (argv) => {
    const { values, positionals } = parseCommandArgs(argv, {
      all: { type: 'boolean' },
      json: { type: 'boolean' },
    });
    if (values.help) {
      out(SYNC_HELP);
      return 0;
    }
    if (positionals.length) {
      throw new UsageError('sync takes no arguments');
    }
    if (values.all) {
      const { submissions } = await withServices(
        values.library,
        (services) => listHubSubmissions(services.lib),
        { create: true },
      );
      if (values.json) {
        outJson({ submissions });
      } else {
        for (const s of submissions) {
          const last = s.verdicts.at(-1);
          out(
            `${s.id} ${s.recording.slice(0, 8)} v${s.version} ${s.status} by ${s.annotator}` +
              (last ? ` — ${last.verdict} by ${last.reviewer} (${last.editLog.length} edits)` : ''),
          );
        }
      }
      return 0;
    }
    const { submissions } = await withServices(
      values.library,
      (services) => syncFromHub(services.lib),
      { create: true },
    );
    const rows = submissions.map((s) => ({
      id: s.id,
      recording: s.recording,
      version: s.version,
      status: s.status,
      grade: s.grade,
      feedback: s.feedback,
      reviewer: s.reviewer,
      taskId: s.taskId,
      // the hub's intake: why a version came back (intake-failed) before any review
      intake: s.intake ?? null,
    }));
    if (values.json) {
      outJson({ submissions: rows });
    } else if (!rows.length) {
      out('no submissions yet');
    } else {
      for (const r of rows) {
        out(
          `${r.id} ${r.recording.slice(0, 8)} v${r.version} ${r.status}` +
            (r.reviewer ? ` — ${r.reviewer}${r.grade ? ` (${r.grade})` : ''}` : '') +
            (r.feedback ? `: ${r.feedback}` : ''),
        );
        if (r.intake?.status === 'failed') {
          for (const reason of r.intake.reasons) {
            out(`    ${reason.code}: ${reason.message} — ${reason.fix}`);
          }
        }
      }
    }
    return 0;
  },
};
