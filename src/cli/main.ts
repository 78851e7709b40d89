// `cua-annotator` entry: dispatches to a command and maps errors to exit codes
// (0 ok, 1 usage error, 2 runtime error).
import { isAppError } from '../shared/errors';
import { classifySystemError } from '../shared/system-error';
import { closestOption, UsageError } from './args';
import type { Command } from './command';
import { errLine, guardClosedPipes, out } from './output';
import { APP_VERSION } from './version';

/** A command in the registry: loaded only when run, so one command's imports never slow or
 * break another (`list` does not load ffmpeg, the recorder or the server). */
export type CommandEntry = { name: string; summary: string; load: () => Promise<Command> };

/** Every command, in help order. */
export const COMMANDS: readonly CommandEntry[] = [
  {
    name: 'record',
    summary: 'record screen, input, windows and accessibility into the library',
    load: async () => (await import('./commands/record')).recordCommand,
  },
  {
    name: 'import',
    summary: 'import AgentNet Tool recording folders',
    load: async () => (await import('./commands/import')).importCommand,
  },
  {
    name: 'list',
    summary: 'list the recordings in the library',
    load: async () => (await import('./commands/list')).listCommand,
  },
  {
    name: 'show',
    summary: 'show one recording with its steps',
    load: async () => (await import('./commands/show')).showCommand,
  },
  {
    name: 'delete',
    summary: 'delete recordings and their files',
    load: async () => (await import('./commands/delete')).deleteCommand,
  },
  {
    name: 'reduce',
    summary: 're-run action reduction over a recording',
    load: async () => (await import('./commands/reduce')).reduceCommand,
  },
  {
    name: 'scan',
    summary: 'scan a recording for personal data and secrets (masked excerpts)',
    load: async () => (await import('./commands/scan')).scanCommand,
  },
  {
    name: 'check',
    summary: 'check a recording before submit or upload (codes, steps, fixes)',
    load: async () => (await import('./commands/check')).checkCommand,
  },
  {
    name: 'replay',
    summary: 'replay a recording on a (virtual) display and score it step by step',
    load: async () => (await import('./commands/replay')).replayCommand,
  },
  {
    name: 'redact',
    summary: 'black out a box of the video over a time range in every export (undoable edit)',
    load: async () => (await import('./commands/redact')).redactCommand,
  },
  {
    name: 'export',
    summary: 'export recordings as agentnet-raw, agentnet-jsonl or standardized',
    load: async () => (await import('./commands/export')).exportCommand,
  },
  {
    name: 'cot',
    summary: 'add OpenCUA reasoning (observation, thought, action, reflection) to every step',
    load: async () => (await import('./commands/cot')).cotCommand,
  },
  {
    name: 'upload',
    summary: 'upload recordings to S3-compatible storage (verified, resumable)',
    load: async () => (await import('./commands/upload')).uploadCommand,
  },
  {
    name: 'uploads',
    summary: 'list the upload queue and history; cancel an upload',
    load: async () => (await import('./commands/uploads')).uploadsCommand,
  },
  {
    name: 'pull',
    summary: 'import complete submissions from S3-compatible storage',
    load: async () => (await import('./commands/pull')).pullCommand,
  },
  {
    name: 'serve',
    summary: 'serve the review UI to a browser (loopback + token)',
    load: async () => (await import('./commands/serve')).serveCommand,
  },
  {
    name: 'hub',
    summary: 'run the team hub (--data DIR | --database URL); hub user add|roles|remove|list',
    load: async () => (await import('./commands/hub')).hubCommand,
  },
  {
    name: 'worker',
    summary: "run the team hub's jobs (intake, keyframes, dataset builds) on this machine",
    load: async () => (await import('./commands/worker')).workerCommand,
  },
  {
    name: 'login',
    summary: 'sign this library in to a team hub (API token in a 0600 file beside it)',
    load: async () => (await import('./commands/login')).loginCommand,
  },
  {
    name: 'logout',
    summary: 'revoke this library’s hub token and forget it',
    load: async () => (await import('./commands/login')).logoutCommand,
  },
  {
    name: 'whoami',
    summary: 'the hub account this library is signed in as',
    load: async () => (await import('./commands/login')).whoamiCommand,
  },
  {
    name: 'tokens',
    summary: 'your hub API tokens: list, create NAME, revoke ID',
    load: async () => (await import('./commands/account')).tokensCommand,
  },
  {
    name: 'audit',
    summary: 'the hub’s audit log (admins): --actor, --action, --limit',
    load: async () => (await import('./commands/account')).auditCommand,
  },
  {
    name: 'submit',
    summary: 'submit recordings to the team hub (checked, verified, resumable)',
    load: async () => (await import('./commands/team')).submitCommand,
  },
  {
    name: 'review',
    summary: 'take the next submission of the team hub; give a verdict',
    load: async () => (await import('./commands/team')).reviewCommand,
  },
  {
    name: 'sync',
    summary: 'your submissions on the team hub: status, grade, feedback',
    load: async () => (await import('./commands/team')).syncCommand,
  },
  {
    name: 'tasks',
    summary: 'the team hub’s tasks: list, claim, release, infeasible; import (admins)',
    load: async () => (await import('./commands/tasks')).tasksCommand,
  },
  {
    name: 'dataset',
    summary: 'build dataset releases on the team hub (admins): build, status, list',
    load: async () => (await import('./commands/dataset')).datasetCommand,
  },
  {
    name: 'doctor',
    summary: 'check this machine for recording (X11, RECORD, ffmpeg, AT-SPI, library)',
    load: async () => (await import('./commands/doctor')).doctorCommand,
  },
];

function topHelp(): string {
  const width = Math.max(...COMMANDS.map((c) => c.name.length));
  return [
    'Usage: cua-annotator <command> [options]',
    '',
    'Records computer use and turns it into AgentNet/OpenCUA training data.',
    '',
    'Commands:',
    ...COMMANDS.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`),
    '',
    'Global options:',
    '  --library DIR   library folder (else CUA_ANNOTATOR_LIBRARY, else ~/.local/share/cua-annotator)',
    '  -h, --help      help for a command: cua-annotator <command> --help',
    '  --version       print the version',
    '',
    'Exit codes: 0 ok, 1 usage error, 2 runtime error.',
  ].join('\n');
}

/** Runs the CLI with `argv` (without node and script) and returns the exit code. */
export async function main(argv: string[]): Promise<number> {
  guardClosedPipes();
  const [name, ...rest] = argv;
  if (!name || name === '--help' || name === '-h' || name === 'help') {
    out(topHelp());
    return name ? 0 : 1;
  }
  if (name === '--version' || name === '-v') {
    out(APP_VERSION);
    return 0;
  }
  const entry = COMMANDS.find((c) => c.name === name);
  if (!entry) {
    const names = COMMANDS.map((c) => c.name);
    const near = closestOption(name, names);
    errLine(`error: unknown command "${name}"${near ? ` (did you mean "${near}"?)` : ''}`);
    errLine(`Run \`cua-annotator --help\` for the list of commands.`);
    return 1;
  }
  try {
    const command = await entry.load();
    return await command.run(rest);
  } catch (e) {
    if (e instanceof UsageError) {
      errLine(`error: ${e.message}`);
      errLine(`Run \`cua-annotator ${entry.name} --help\` for usage.`);
      return 1;
    }
    // an OS or SQLite failure (disk full, locked or damaged database, bad path) gets its code and
    // fix; the JavaScript stack only with CUA_ANNOTATOR_DEBUG=1
    const coded = isAppError(e) ? e : classifySystemError(e);
    const stack = e instanceof Error ? (e.stack ?? e.message) : String(e);
    if (coded) {
      errLine(`error [${coded.code}]: ${coded.message}`);
      if (coded.fix) {
        errLine(`fix: ${coded.fix}`);
      }
      if (!isAppError(e) && process.env.CUA_ANNOTATOR_DEBUG) {
        errLine(stack);
      }
      return 2;
    }
    if (process.env.CUA_ANNOTATOR_DEBUG) {
      errLine(`error [INTERNAL]: ${stack}`);
    } else {
      errLine(`error [INTERNAL]: ${e instanceof Error ? e.message : String(e)}`);
      errLine(
        'fix: This is a bug in cua-annotator: run the command again with CUA_ANNOTATOR_DEBUG=1 and report its output.',
      );
    }
    return 2;
  }
}
