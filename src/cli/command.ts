// Shape of one CLI command, and defineCommand: the preamble every command shares written once —
// parse the options (with the common --help and --library), answer --help with the command's
// help, check how many arguments came (a UsageError naming what the command takes) — plus the
// --json-or-text ending and the unwrapping of a dispatched call's Result.
import type { ParseArgsConfig } from 'node:util';
import { AppError } from '../shared/errors';
import type { Result } from '../shared/result';
import { parseCommandArgs, UsageError } from './args';
import { out, outJson } from './output';

/** One `cua-annotator <name>` command. */
export type Command = {
  name: string;
  /** One line for the command list. */
  summary: string;
  /** Full `--help` text. */
  help: string;
  /** Runs the command; returns the exit code. Throw UsageError for usage mistakes. */
  run: (argv: string[]) => Promise<number>;
};

type Options = NonNullable<ParseArgsConfig['options']>;

/** What a command's body gets: the parsed options and arguments. */
export type ParsedArgs<O extends Options> = ReturnType<typeof parseCommandArgs<O>>;

/** How many arguments a command takes; otherwise a UsageError with `usage`. */
export type ArgumentCount =
  /** exactly this many, none of them empty */
  | { exactly: number; usage: string }
  /** this many or more */
  | { atLeast: number; usage: string }
  /** none: `<name> takes no arguments (got "…")`, then `hint` */
  | { none: true; hint?: string };

/** A command as {@link defineCommand} takes it. */
export type CommandDefinition<O extends Options> = {
  name: string;
  summary: string;
  help: string;
  /** The command's own options (--help and --library are added). */
  options: O;
  /** The arguments it takes; default: any number. */
  args?: ArgumentCount;
  /** The command itself, once --help and the argument count are dealt with; the exit code. */
  run: (parsed: ParsedArgs<O>) => Promise<number>;
};

function checkCount(name: string, positionals: readonly string[], count: ArgumentCount): void {
  if ('none' in count) {
    if (positionals.length) {
      throw new UsageError(
        `${name} takes no arguments (got "${positionals.join(' ')}")${count.hint ?? ''}`,
      );
    }
    return;
  }
  const fits =
    'exactly' in count
      ? positionals.length === count.exactly && positionals.every((p) => p !== '')
      : positionals.length >= count.atLeast;
  if (!fits) {
    throw new UsageError(count.usage);
  }
}

// A command from its definition: parses argv, prints the help for --help (exit 0), checks the
// argument count, then runs the body.
export function defineCommand<O extends Options>(definition: CommandDefinition<O>): Command {
  const { name, summary, help } = definition;
  return {
    name,
    summary,
    help,
    run: async (argv) => {
      const parsed = parseCommandArgs(argv, definition.options);
      // (--help is one of COMMON_OPTIONS, which every command's options include)
      if ((parsed.values as { help?: boolean }).help) {
        out(help);
        return 0;
      }
      if (definition.args) {
        checkCount(name, parsed.positionals, definition.args);
      }
      return await definition.run(parsed);
    },
  };
}

/** Prints `value` as JSON with `json`, else as text through `text`; exit code 0. */
export function printResult<T>(json: boolean | undefined, value: T, text: (value: T) => void): 0 {
  if (json) {
    outJson(value);
  } else {
    text(value);
  }
  return 0;
}

/** The value of a dispatched call, or its error thrown as the AppError it was. */
export function unwrapResult<T>(result: Result<T>): T {
  if (!result.ok) {
    const e = result.error;
    throw new AppError(e.code, e.message, e.details, e.fix);
  }
  return result.value;
}
