// `cua-annotator` entry: dispatches to a command and maps errors to exit codes
// (0 ok, 1 usage error, 2 runtime error).
import { isAppError } from '../shared/errors';
import { UsageError } from './args';
import type { Command } from './command';
import { deleteCommand } from './commands/delete';
import { doctorCommand } from './commands/doctor';
import { exportCommand } from './commands/export';
import { importCommand } from './commands/import';
import { listCommand } from './commands/list';
import { recordCommand } from './commands/record';
import { reduceCommand } from './commands/reduce';
import { showCommand } from './commands/show';
import { errLine, out } from './output';
import { APP_VERSION } from './version';

/** Every command, in help order. */
export const COMMANDS: readonly Command[] = [
  recordCommand,
  importCommand,
  listCommand,
  showCommand,
  deleteCommand,
  reduceCommand,
  exportCommand,
  doctorCommand,
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
  const [name, ...rest] = argv;
  if (!name || name === '--help' || name === '-h' || name === 'help') {
    out(topHelp());
    return name ? 0 : 1;
  }
  if (name === '--version' || name === '-v') {
    out(APP_VERSION);
    return 0;
  }
  const command = COMMANDS.find((c) => c.name === name);
  if (!command) {
    errLine(`error: unknown command "${name}"`);
    errLine(`Run \`cua-annotator --help\` for the list of commands.`);
    return 1;
  }
  try {
    return await command.run(rest);
  } catch (e) {
    if (e instanceof UsageError) {
      errLine(`error: ${e.message}`);
      errLine(`Run \`cua-annotator ${command.name} --help\` for usage.`);
      return 1;
    }
    if (isAppError(e)) {
      errLine(`error [${e.code}]: ${e.message}`);
      return 2;
    }
    errLine(`error [INTERNAL]: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`);
    return 2;
  }
}
