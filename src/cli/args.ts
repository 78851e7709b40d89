// Argument parsing shared by all commands (node's util.parseArgs with our usage errors).
import { parseArgs, type ParseArgsConfig } from 'node:util';

/** A usage mistake: exit code 1 and the command's help hint. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

/** Options every command accepts. */
export const COMMON_OPTIONS = {
  help: { type: 'boolean', short: 'h' },
  library: { type: 'string' },
} as const satisfies ParseArgsConfig['options'];

/** Parses argv for one command, turning parse failures into {@link UsageError}. */
export function parseCommandArgs<O extends NonNullable<ParseArgsConfig['options']>>(
  argv: string[],
  options: O,
  allowPositionals = true,
) {
  try {
    return parseArgs({
      args: argv,
      options: { ...COMMON_OPTIONS, ...options },
      allowPositionals,
      strict: true,
    });
  } catch (e) {
    throw new UsageError((e as Error).message);
  }
}
