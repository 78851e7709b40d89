// Pure parsers for the text that xprop and xwininfo (x11-utils) print: window ids, string and
// cardinal properties (with xprop's C-style escapes), and absolute window geometry.

/** A window rectangle in screen pixels. */
export type WindowBounds = {
  /** Left edge, screen px. */
  x: number;
  /** Top edge, screen px. */
  y: number;
  /** Width, px. */
  width: number;
  /** Height, px. */
  height: number;
};

/** One property as xprop prints it: `NAME(TYPE) = v1, v2` (values still encoded). */
export type XpropValue = {
  /** Property type, e.g. `UTF8_STRING`, `CARDINAL`, `WINDOW`. */
  type: string;
  /** The text after ` = ` (or `: ` for windows), unparsed. */
  raw: string;
};

const PROPERTY_LINE = /^([A-Za-z0-9_]+)\(([A-Za-z0-9_]+)\)(?: = |: )(.*)$/;

// Parses `xprop` output into name → value; properties xprop reports as missing are absent.
export function parseXpropOutput(text: string): Map<string, XpropValue> {
  const props = new Map<string, XpropValue>();
  for (const line of text.split('\n')) {
    const match = PROPERTY_LINE.exec(line);
    if (match) {
      const [, name = '', type = '', raw = ''] = match;
      props.set(name, { type, raw });
    }
  }
  return props;
}

/**
 * Window id from a `_NET_ACTIVE_WINDOW` line (`…(WINDOW): window id # 0x800003`): the id in
 * lowercase hex, null for "no window" (`0x0`, `not found`), undefined for unrelated lines.
 */
export function parseActiveWindowLine(line: string): string | null | undefined {
  if (!line.startsWith('_NET_ACTIVE_WINDOW')) {
    return undefined;
  }
  const match = /window id # (0x[0-9a-fA-F]+)/.exec(line);
  if (!match?.[1]) {
    return null; // "_NET_ACTIVE_WINDOW:  not found." (no EWMH window manager yet)
  }
  const id = match[1].toLowerCase();
  return Number.parseInt(id, 16) === 0 ? null : id;
}

// Resolves xprop's C-style escapes (\" \\ \n \ooo) and decodes the bytes as UTF-8.
export function unescapeXprop(text: string): string {
  const bytes: number[] = [];
  for (let j = 0; j < text.length; j += 1) {
    const code = text.codePointAt(j) as number;
    if (code !== 0x5c /* backslash */ || j === text.length - 1) {
      if (code > 0xffff) {
        j += 1; // the second half of a surrogate pair
      }
      bytes.push(...Buffer.from(String.fromCodePoint(code), 'utf8'));
      continue;
    }
    const octal = /^[0-7]{1,3}/.exec(text.slice(j + 1, j + 4));
    if (octal) {
      bytes.push(Number.parseInt(octal[0], 8) & 0xff);
      j += octal[0].length;
      continue;
    }
    const next = text[j + 1] as string;
    const escaped = ESCAPES[next];
    if (escaped === undefined) {
      bytes.push(0x5c); // not an escape xprop writes: keep the backslash
    } else {
      bytes.push(escaped);
      j += 1;
    }
  }
  return Buffer.from(bytes).toString('utf8');
}

const ESCAPES: Record<string, number> = { n: 10, t: 9, r: 13, '"': 34, '\\': 92 };

// Splits xprop's quoted string list (`"a", "b \"c\""`) into decoded strings.
export function parseXpropStrings(raw: string): string[] {
  const out: string[] = [];
  let i = raw.indexOf('"');
  while (i >= 0 && i < raw.length) {
    let j = i + 1;
    while (j < raw.length && raw[j] !== '"') {
      j += raw[j] === '\\' ? 2 : 1;
    }
    out.push(unescapeXprop(raw.slice(i + 1, j)));
    i = raw.indexOf('"', j + 1);
  }
  return out;
}

/**
 * A single-string property, or null when absent. The whole quoted value is one string, so the
 * unescaped quotes xprop prints for COMPOUND_TEXT do not split it.
 */
export function xpropString(props: Map<string, XpropValue>, name: string): string | null {
  const value = props.get(name);
  if (value === undefined) {
    return null;
  }
  const raw = value.raw.trim();
  if (raw.length >= 2 && raw.startsWith('"') && raw.endsWith('"')) {
    return unescapeXprop(raw.slice(1, -1));
  }
  return unescapeXprop(raw);
}

/** The first cardinal of a CARDINAL property, or null when absent. */
export function xpropCardinal(props: Map<string, XpropValue>, name: string): number | null {
  const value = props.get(name);
  if (value === undefined) {
    return null;
  }
  const first = Number.parseInt(value.raw.split(',')[0]?.trim() ?? '', 10);
  return Number.isFinite(first) ? first : null;
}

// Absolute geometry from `xwininfo -id` output ("Absolute upper-left X:", "Width:", …).
export function parseXwininfoGeometry(text: string): WindowBounds | null {
  const read = (label: string): number | null => {
    const match = new RegExp(`^\\s*${label}:\\s*(-?\\d+)\\s*$`, 'm').exec(text);
    return match?.[1] === undefined ? null : Number.parseInt(match[1], 10);
  };
  const x = read('Absolute upper-left X');
  const y = read('Absolute upper-left Y');
  const width = read('Width');
  const height = read('Height');
  if (x === null || y === null || width === null || height === null) {
    return null;
  }
  return { x, y, width, height };
}

/** A WINDOW property (`WM_TRANSIENT_FOR(WINDOW): window id # 0x400003`) as lowercase hex, or null
 * when absent or 0. */
export function xpropWindow(props: Map<string, XpropValue>, name: string): string | null {
  const match = /0x[0-9a-fA-F]+/.exec(props.get(name)?.raw ?? '');
  return match && Number.parseInt(match[0], 16) !== 0 ? match[0].toLowerCase() : null;
}
