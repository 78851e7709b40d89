// Python `json.dumps`-compatible serialisation of plain JSON values: the AgentNet files and the
// CoT bridge are written by Python upstream, and byte-exact goldens depend on its exact output.
import { pyReprFloat } from '../code';

/** Options mirroring `json.dumps` keyword arguments. */
export type PyJsonOptions = {
  /** `ensure_ascii` (Python's default true): escape every code unit outside 0x20–0x7E. */
  ensureAscii?: boolean;
  /** `sort_keys`, applied at every level. Default false (insertion order). */
  sortKeys?: boolean;
  /** `indent` in spaces; undefined = one line with `", "` and `": "` separators. */
  indent?: number;
};

const SHORT_ESCAPES: Record<string, string> = {
  '"': '\\"',
  '\\': '\\\\',
  '\n': '\\n',
  '\r': '\\r',
  '\t': '\\t',
  '\b': '\\b',
  '\f': '\\f',
};

function hex4(code: number): string {
  return `\\u${code.toString(16).padStart(4, '0')}`;
}

/** Python's JSON string literal (`ensure_ascii` decides whether non-ASCII is escaped). */
export function pyJsonString(text: string, ensureAscii = true): string {
  let out = '"';
  for (let i = 0; i < text.length; i += 1) {
    const ch = text[i]!;
    const code = text.charCodeAt(i);
    const short = SHORT_ESCAPES[ch];
    if (short !== undefined) {
      out += short;
    } else if (code < 0x20 || (ensureAscii && code > 0x7e)) {
      out += hex4(code);
    } else {
      out += ch;
    }
  }
  return `${out}"`;
}

/** Python's JSON number: ints as digits, other floats with `repr` (NaN/Infinity as Python does). */
export function pyJsonNumber(value: number): string {
  if (Number.isNaN(value)) {
    return 'NaN';
  }
  if (!Number.isFinite(value)) {
    return value > 0 ? 'Infinity' : '-Infinity';
  }
  if (Number.isInteger(value) && Math.abs(value) < 1e16) {
    return Object.is(value, -0) ? '-0.0' : String(value);
  }
  return pyReprFloat(value);
}

/** Serialises a JSON value exactly as Python's `json.dumps(value, **options)` would. */
export function pyJsonDumps(value: unknown, options: PyJsonOptions = {}): string {
  const ensureAscii = options.ensureAscii ?? true;
  const indent = options.indent;
  const walk = (v: unknown, level: number): string => {
    if (v === null || v === undefined) {
      return 'null';
    }
    if (typeof v === 'boolean') {
      return v ? 'true' : 'false';
    }
    if (typeof v === 'number') {
      return pyJsonNumber(v);
    }
    if (typeof v === 'string') {
      return pyJsonString(v, ensureAscii);
    }
    const pad = indent === undefined ? '' : `\n${' '.repeat(indent * (level + 1))}`;
    const close = indent === undefined ? '' : `\n${' '.repeat(indent * level)}`;
    const sep = indent === undefined ? ', ' : ',';
    if (Array.isArray(v)) {
      if (!v.length) {
        return '[]';
      }
      return `[${pad}${v.map((x) => walk(x, level + 1)).join(sep + pad)}${close}]`;
    }
    if (typeof v === 'object') {
      const entries = Object.entries(v as Record<string, unknown>).filter(
        ([, x]) => x !== undefined,
      );
      if (options.sortKeys) {
        entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
      }
      if (!entries.length) {
        return '{}';
      }
      const body = entries.map(
        ([k, x]) => `${pyJsonString(k, ensureAscii)}: ${walk(x, level + 1)}`,
      );
      return `{${pad}${body.join(sep + pad)}${close}}`;
    }
    throw new TypeError(`pyJsonDumps: cannot serialise ${typeof v}`);
  };
  return walk(value, 0);
}
