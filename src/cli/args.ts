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
  const all = { ...COMMON_OPTIONS, ...options };
  try {
    return parseArgs({ args: argv, options: all, allowPositionals, strict: true });
  } catch (e) {
    throw new UsageError(parseErrorMessage(e as NodeJS.ErrnoException, argv, all));
  }
}

type OptionSpec = { type: 'string' | 'boolean'; short?: string };

// Node's parser messages quote unevenly and never suggest; say it in our words instead.
function parseErrorMessage(
  e: NodeJS.ErrnoException,
  argv: readonly string[],
  options: Readonly<Record<string, OptionSpec>>,
): string {
  const quoted = /'([^']*)'/.exec(e.message)?.[1] ?? '';
  if (e.code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') {
    const flag = quoted || (argv.find((a) => a.startsWith('-') && a !== '--') ?? '');
    const near = closestOption(flag, Object.keys(options));
    return (
      `unknown option ${flag}` +
      (near ? ` (did you mean --${near}?)` : '') +
      (/^-\d/.test(flag) ? ' (to pass a value starting with "-", put it after "--")' : '')
    );
  }
  if (e.code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE') {
    const name = /^--?([\w-]+)/.exec(quoted)?.[1] ?? quoted;
    const spec = options[name] ?? Object.values(options).find((o) => o.short === name);
    const long = options[name]
      ? name
      : (Object.keys(options).find((k) => options[k] === spec) ?? name);
    return spec?.type === 'boolean'
      ? `option --${long} takes no value`
      : `option --${long} needs a value (--${long} VALUE)`;
  }
  return e.message;
}

/** The option name closest to a mistyped `--flag` (edit distance ≤ 2, or a unique prefix). */
export function closestOption(flag: string, names: readonly string[]): string | null {
  const typed = flag.replace(/^-+/, '').split('=')[0] ?? '';
  if (!typed) {
    return null;
  }
  const prefixed = names.filter((n) => n.startsWith(typed));
  if (prefixed.length === 1) {
    return prefixed[0] ?? null;
  }
  let best: string | null = null;
  let bestDistance = Math.min(2, Math.floor(typed.length / 2));
  for (const name of names) {
    const d = editDistance(typed, name);
    // the first within reach, then only a strictly closer one (bestDistance is best's distance)
    if (best === null ? d <= bestDistance : d < bestDistance) {
      best = name;
      bestDistance = d;
    }
  }
  return best;
}

// Damerau-Levenshtein (optimal string alignment): a swapped pair of letters costs 1.
function editDistance(a: string, b: string): number {
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) =>
    Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  for (let i = 1; i <= a.length; i += 1) {
    for (let j = 1; j <= b.length; j += 1) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      const row = d[i]!;
      const prev = d[i - 1]!;
      row[j] = Math.min(prev[j]! + 1, row[j - 1]! + 1, prev[j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        row[j] = Math.min(row[j]!, d[i - 2]![j - 2]! + 1);
      }
    }
  }
  return d[a.length]![b.length]!;
}
