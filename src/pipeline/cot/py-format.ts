// Python's str.format, the subset OpenCUA's CoT prompts use (docs/cot.md §3): `{name}` and
// positional `{0}` / `{}` fields, `{{` and `}}` escapes, values as Python's str() writes them
// (True/False/None, ints). Anything else (format specs, conversions, attribute or index access)
// is refused rather than filled differently from Python.

/** A value a field takes: written as Python's str() writes it. */
export type PyFormatValue = string | number | boolean | null;

/** Python's str() of a value the prompts take. */
export function pyStr(value: PyFormatValue): string {
  if (value === null) {
    return 'None';
  }
  if (typeof value === 'boolean') {
    return value ? 'True' : 'False';
  }
  if (typeof value === 'number') {
    if (!Number.isSafeInteger(value)) {
      throw new TypeError(`pyFormat: only integers are formatted, got ${value}`);
    }
    return String(value);
  }
  return value;
}

/**
 * `template.format(*positional, **named)` as Python computes it for the subset above; throws
 * (like Python's KeyError/IndexError/ValueError) on a missing field or a lone brace.
 */
export function pyFormat(
  template: string,
  named: Readonly<Record<string, PyFormatValue>> = {},
  positional: readonly PyFormatValue[] = [],
): string {
  let out = '';
  let auto = 0;
  let i = 0;
  while (i < template.length) {
    const open = template.indexOf('{', i);
    const close = template.indexOf('}', i);
    if (open < 0 && close < 0) {
      out += template.slice(i);
      break;
    }
    if (close >= 0 && (open < 0 || close < open)) {
      if (template[close + 1] !== '}') {
        throw new SyntaxError(`pyFormat: single '}' encountered in format string at ${close}`);
      }
      out += template.slice(i, close + 1);
      i = close + 2;
      continue;
    }
    out += template.slice(i, open);
    if (template[open + 1] === '{') {
      out += '{';
      i = open + 2;
      continue;
    }
    const end = template.indexOf('}', open);
    if (end < 0) {
      throw new SyntaxError(`pyFormat: single '{' encountered in format string at ${open}`);
    }
    const field = template.slice(open + 1, end);
    out += pyStr(lookup(field, named, positional, () => auto++));
    i = end + 1;
  }
  return out;
}

function lookup(
  field: string,
  named: Readonly<Record<string, PyFormatValue>>,
  positional: readonly PyFormatValue[],
  nextAuto: () => number,
): PyFormatValue {
  if (field === '' || /^\d+$/.test(field)) {
    const index = field === '' ? nextAuto() : Number(field);
    if (index >= positional.length) {
      throw new RangeError(`pyFormat: Replacement index ${index} out of range`);
    }
    return positional[index]!;
  }
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(field)) {
    throw new SyntaxError(`pyFormat: field {${field}} is outside the supported subset`);
  }
  if (!Object.hasOwn(named, field)) {
    throw new RangeError(`pyFormat: KeyError '${field}'`);
  }
  return named[field]!;
}
