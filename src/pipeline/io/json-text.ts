// Strict JSON / JSON-lines text handling with precise diagnostics for imported files.
//
// Files come from Python (`json.dumps`), which writes `NaN`/`Infinity` for non-finite floats: not
// JSON. `JSON.parse` only says "unexpected token", so on failure the text is scanned again to tell
// a non-finite number (naming its field) from a truncated line and from plain garbage.
import { importInvalid, legacyEncrypted } from './import-error';
import type { SourceLocation } from './import-error';

/** One non-blank line of a text file. */
export type TextLine = {
  /** 1-based line number in the file (blank lines counted). */
  line: number;
  /** Line content without its line terminator. */
  text: string;
};

const UTF8 = new TextDecoder('utf-8', { fatal: true });
const SNIPPET_MAX_CHARS = 40;

/** Decodes UTF-8 bytes (a leading BOM is dropped); rejects invalid UTF-8 naming the file. */
export function decodeUtf8(file: string, bytes: Uint8Array): string {
  try {
    // TextDecoder strips a leading U+FEFF unless ignoreBOM is set.
    return UTF8.decode(bytes);
  } catch {
    throw importInvalid({ file }, 'not valid UTF-8 text');
  }
}

/** Splits text on LF or CRLF and drops blank (whitespace-only) lines, keeping line numbers. */
export function nonBlankLines(text: string): TextLine[] {
  const out: TextLine[] = [];
  const parts = text.split('\n');
  for (let i = 0; i < parts.length; i++) {
    let part = parts[i] ?? '';
    if (part.endsWith('\r')) {
      part = part.slice(0, -1);
    }
    if (part.trim() !== '') {
      out.push({ line: i + 1, text: part });
    }
  }
  return out;
}

/** Rejects a legacy AgentNet file whose first line is `encrypted` (Fernet token follows). */
export function assertNotEncrypted(file: string, text: string): void {
  const newline = text.indexOf('\n');
  const first = newline < 0 ? text : text.slice(0, newline);
  if (first.trim() === 'encrypted') {
    throw legacyEncrypted(file);
  }
}

/** Short human description of a JSON value for error messages (`string "12"`, `array`). */
export function describeJsonValue(value: unknown): string {
  if (value === null) {
    return 'null';
  }
  if (Array.isArray(value)) {
    return 'array';
  }
  switch (typeof value) {
    case 'string':
      return `string ${JSON.stringify(snippet(value))}`;
    case 'number':
      return `number ${String(value)}`;
    case 'boolean':
      return `boolean ${String(value)}`;
    case 'object':
      return 'object';
    default:
      return typeof value;
  }
}

/**
 * Parses `text` as one JSON object. `lineOfText` is the 1-based line number when `text` is one
 * line of a JSON-lines file; for a whole file pass `undefined` (a NaN/Infinity literal then gets
 * the line it sits on, other problems are reported for the whole file).
 */
export function parseJsonObject(
  file: string,
  text: string,
  lineOfText: number | undefined,
): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw diagnoseJson(file, text, lineOfText);
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    const loc: SourceLocation = lineOfText === undefined ? { file } : { file, line: lineOfText };
    throw importInvalid(loc, `expected a JSON object, got ${describeJsonValue(value)}`);
  }
  return value as Record<string, unknown>;
}

function snippet(text: string): string {
  const chars = [...text];
  return chars.length > SNIPPET_MAX_CHARS ? `${chars.slice(0, SNIPPET_MAX_CHARS).join('')}…` : text;
}

function lineAt(text: string, offset: number): number {
  let line = 1;
  for (let i = 0; i < offset && i < text.length; i++) {
    if (text.charCodeAt(i) === 10) {
      line++;
    }
  }
  return line;
}

type ScanResult = {
  /** First bare non-finite literal outside strings, if any. */
  nonFinite?: {
    token: 'NaN' | 'Infinity' | '-Infinity';
    offset: number;
    /** Nearest preceding object key. */
    key: string | null;
    /** True when the literal is the key's value itself (not inside a nested array). */
    isDirect: boolean;
  };
  /** The text ends inside a string or an unclosed object/array. */
  isTruncated: boolean;
};

const NON_FINITE_TOKENS = ['-Infinity', 'Infinity', 'NaN'] as const;

// Lexical scan outside strings: bracket depth, the last object key, bare NaN/Infinity literals.
function scanJson(text: string): ScanResult {
  let depth = 0;
  let isInString = false;
  let stringStart = 0;
  let lastString: string | null = null;
  let key: string | null = null;
  let isAfterColon = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (isInString) {
      if (c === 92 /* \ */) {
        i++;
      } else if (c === 34 /* " */) {
        isInString = false;
        lastString = decodeJsonString(text.slice(stringStart, i + 1));
      }
      continue;
    }
    if (c === 32 || c === 9 || c === 10 || c === 13) {
      continue;
    }
    if (c === 34) {
      isInString = true;
      stringStart = i;
      isAfterColon = false;
      continue;
    }
    const token = NON_FINITE_TOKENS.find((t) => text.startsWith(t, i));
    if (token !== undefined) {
      return {
        nonFinite: { token, offset: i, key, isDirect: isAfterColon },
        isTruncated: false,
      };
    }
    if (c === 58 /* : */) {
      key = lastString;
      isAfterColon = true;
      continue;
    }
    isAfterColon = false;
    if (c === 123 /* { */ || c === 91 /* [ */) {
      depth++;
    } else if (c === 125 /* } */ || c === 93 /* ] */) {
      depth--;
    }
  }
  return { isTruncated: isInString || depth > 0 };
}

function decodeJsonString(literal: string): string {
  try {
    return String(JSON.parse(literal));
  } catch {
    return literal.slice(1, -1);
  }
}

function diagnoseJson(file: string, text: string, lineOfText: number | undefined): Error {
  const scan = scanJson(text);
  if (scan.nonFinite !== undefined) {
    const { token, offset, key, isDirect } = scan.nonFinite;
    const line = lineOfText ?? lineAt(text, offset);
    let problem: string;
    if (key === null) {
      problem = `${token} is not valid JSON`;
    } else if (isDirect) {
      problem = `field "${key}" is ${token} (not valid JSON)`;
    } else {
      problem = `field "${key}" contains ${token} (not valid JSON)`;
    }
    return importInvalid({ file, line }, problem);
  }
  const loc: SourceLocation = lineOfText === undefined ? { file } : { file, line: lineOfText };
  if (text.trim() === '') {
    return importInvalid(loc, 'file is empty');
  }
  if (scan.isTruncated) {
    return importInvalid(loc, 'truncated JSON (ends before the object is closed)');
  }
  const shown = lineOfText === undefined ? text.trim() : text;
  return importInvalid(loc, `not valid JSON: ${JSON.stringify(snippet(shown))}`);
}
