// Tokenizer for the small Python subset of code strings: names, numbers, strings, punctuation.
import { invalidCode } from '../../shared/python/code-error';
import type { PyNumber } from '../../shared/python/py-value';
import { pyFloat, pyInt } from '../../shared/python/py-value';

/** 1-based source position. */
export type SourcePosition = { line: number; column: number };

/** One token; `newline` ends a statement (only emitted outside brackets). */
export type PyToken = SourcePosition &
  (
    | { kind: 'name'; text: string }
    | { kind: 'number'; text: string; value: PyNumber }
    | { kind: 'string'; text: string; value: string }
    | { kind: 'op'; text: string }
    | { kind: 'newline'; text: string }
    | { kind: 'end'; text: string }
  );

// Builds the INVALID_PAYLOAD error for malformed code, naming the line and column.
export function codeSyntaxError(at: SourcePosition, reason: string): Error {
  return invalidCode(`Invalid code at line ${at.line}, column ${at.column}: ${reason}`, {
    line: at.line,
    column: at.column,
  });
}

const NAME = /[A-Za-z_][A-Za-z0-9_]*/y;
const DIGITS = String.raw`\d(?:_?\d)*`;
const NUMBER = new RegExp(
  String.raw`0[xX](?:_?[0-9a-fA-F])+|0[oO](?:_?[0-7])+|0[bB](?:_?[01])+|` +
    String.raw`(?:(?:${DIGITS})?\.${DIGITS}|${DIGITS}\.?)(?:[eE][+-]?${DIGITS})?`,
  'y',
);
const OPERATORS = new Set(['(', ')', '[', ']', '{', '}', ',', '=', '.', ';', '+', '-', ':']);
const OPENING: Readonly<Record<string, string>> = { '(': ')', '[': ']', '{': '}' };
const SIMPLE_ESCAPES: Readonly<Record<string, string>> = {
  '\\': '\\',
  "'": "'",
  '"': '"',
  a: '\x07',
  b: '\b',
  f: '\f',
  n: '\n',
  r: '\r',
  t: '\t',
  v: '\v',
};
const STRING_PREFIXES = new Set(['r', 'u', 'R', 'U']);
const UNSUPPORTED_PREFIXES = /^(?:[bBfF]|[rR][bBfF]|[bBfF][rR])$/;

class Lexer {
  private index = 0;
  private line = 1;
  private lineStart = 0;
  private readonly brackets: string[] = [];
  readonly tokens: PyToken[] = [];

  constructor(private readonly source: string) {
    if (source.startsWith('\uFEFF')) {
      this.index = 1;
      this.lineStart = 1;
    }
  }

  private position(index = this.index): SourcePosition {
    return { line: this.line, column: index - this.lineStart + 1 };
  }

  private fail(reason: string, at: SourcePosition = this.position()): never {
    throw codeSyntaxError(at, reason);
  }

  private char(offset = 0): string {
    return this.source[this.index + offset] ?? '';
  }

  /** Consumes a line break (`\n`, `\r\n` or `\r`) at the cursor. */
  private newline(): void {
    this.index += this.char() === '\r' && this.char(1) === '\n' ? 2 : 1;
    this.line += 1;
    this.lineStart = this.index;
  }

  run(): PyToken[] {
    while (this.index < this.source.length) {
      const char = this.char();
      if (char === '\n' || char === '\r') {
        if (this.brackets.length === 0) {
          this.tokens.push({ kind: 'newline', text: '\n', ...this.position() });
        }
        this.newline();
      } else if (char === ' ' || char === '\t' || char === '\f') {
        this.index += 1;
      } else if (char === '#') {
        while (this.index < this.source.length && !'\r\n'.includes(this.char())) {
          this.index += 1;
        }
      } else if (char === '\\' && (this.char(1) === '\n' || this.char(1) === '\r')) {
        this.index += 1;
        this.newline();
      } else if (char === "'" || char === '"') {
        this.string('', this.position());
      } else if (/[A-Za-z_]/.test(char)) {
        this.name();
      } else if (/\d/.test(char) || (char === '.' && /\d/.test(this.char(1)))) {
        this.number();
      } else if (OPERATORS.has(char)) {
        this.operator(char);
      } else {
        this.fail(`unexpected character ${JSON.stringify(char)}`);
      }
    }
    if (this.brackets.length > 0) {
      this.fail(`unclosed bracket, expected ${JSON.stringify(this.brackets.at(-1))}`);
    }
    this.tokens.push({ kind: 'end', text: '', ...this.position() });
    return this.tokens;
  }

  private operator(char: string): void {
    const at = this.position();
    const closing = OPENING[char];
    if (closing !== undefined) {
      this.brackets.push(closing);
    } else if (char === ')' || char === ']' || char === '}') {
      if (this.brackets.pop() !== char) {
        this.fail(`unmatched ${JSON.stringify(char)}`, at);
      }
    }
    this.index += 1;
    this.tokens.push({ kind: 'op', text: char, ...at });
  }

  private name(): void {
    const at = this.position();
    NAME.lastIndex = this.index;
    const text = NAME.exec(this.source)?.[0] ?? '';
    this.index += text.length;
    const next = this.char();
    if (next === "'" || next === '"') {
      if (STRING_PREFIXES.has(text)) {
        this.string(text, at);
        return;
      }
      if (UNSUPPORTED_PREFIXES.test(text)) {
        this.fail(`string prefix ${JSON.stringify(text)} is not supported`, at);
      }
    }
    this.tokens.push({ kind: 'name', text, ...at });
  }

  private number(): void {
    const at = this.position();
    NUMBER.lastIndex = this.index;
    const text = NUMBER.exec(this.source)?.[0] ?? '';
    this.index += text.length;
    if (/[A-Za-z0-9_.]/.test(this.char())) {
      this.fail(`invalid number literal starting ${JSON.stringify(text + this.char())}`, at);
    }
    const plain = text.replace(/_/g, '');
    let value: PyNumber;
    if (/^0[xob]/i.test(plain)) {
      const radix = { x: 16, o: 8, b: 2 }[plain.charAt(1).toLowerCase()] ?? 10;
      value = pyInt(parseInt(plain.slice(2), radix));
    } else if (/[.eE]/.test(plain)) {
      value = pyFloat(Number(plain));
    } else {
      if (/^0+[1-9]/.test(plain)) {
        this.fail(`leading zeros in integer literal ${JSON.stringify(text)}`, at);
      }
      value = pyInt(Number(plain));
    }
    if ('int' in value && !Number.isSafeInteger(value.int)) {
      this.fail(`integer ${text} is too large`, at);
    }
    this.tokens.push({ kind: 'number', text, value, ...at });
  }

  private string(prefix: string, at: SourcePosition): void {
    const isRaw = prefix.toLowerCase() === 'r';
    const quote = this.char();
    const isTriple = this.char(1) === quote && this.char(2) === quote;
    const start = this.index;
    this.index += isTriple ? 3 : 1;
    let value = '';
    for (;;) {
      const char = this.char();
      if (this.index >= this.source.length) {
        this.fail('unterminated string literal', at);
      }
      if (char === quote && (!isTriple || (this.char(1) === quote && this.char(2) === quote))) {
        this.index += isTriple ? 3 : 1;
        break;
      }
      if (char === '\n' || char === '\r') {
        if (!isTriple) {
          this.fail('unterminated string literal (newline inside a quoted string)', at);
        }
        value += '\n';
        this.newline();
      } else if (char === '\\') {
        value += isRaw ? this.rawEscape() : this.escape();
      } else {
        value += char;
        this.index += 1;
      }
    }
    const text = prefix + this.source.slice(start, this.index);
    this.tokens.push({ kind: 'string', text, value, ...at });
  }

  /** In a raw string a backslash stays, and it only protects the next character. */
  private rawEscape(): string {
    const next = this.char(1);
    if (next === '\n' || next === '\r') {
      this.index += 1;
      this.newline();
      return '\\\n';
    }
    this.index += next === '' ? 1 : 2;
    return `\\${next}`;
  }

  private escape(): string {
    const at = this.position();
    const next = this.char(1);
    if (next === '\n' || next === '\r') {
      // backslash-newline: line continuation inside the literal
      this.index += 1;
      this.newline();
      return '';
    }
    const simple = SIMPLE_ESCAPES[next];
    if (simple !== undefined) {
      this.index += 2;
      return simple;
    }
    if (/[0-7]/.test(next)) {
      const digits = /^[0-7]{1,3}/.exec(this.source.slice(this.index + 1))?.[0] ?? next;
      this.index += 1 + digits.length;
      return String.fromCodePoint(parseInt(digits, 8));
    }
    const hexLength = { x: 2, u: 4, U: 8 }[next];
    if (hexLength !== undefined) {
      const digits = this.source.slice(this.index + 2, this.index + 2 + hexLength);
      if (!new RegExp(`^[0-9a-fA-F]{${hexLength}}$`).test(digits)) {
        this.fail(`truncated \\${next} escape (expected ${hexLength} hex digits)`, at);
      }
      const codePoint = parseInt(digits, 16);
      if (codePoint > 0x10ffff) {
        this.fail(`\\${next}${digits} is not a Unicode code point`, at);
      }
      this.index += 2 + hexLength;
      return String.fromCodePoint(codePoint);
    }
    if (next === 'N') {
      this.fail('\\N{…} escapes are not supported', at);
    }
    // Unknown escapes keep the backslash, like Python (which only warns).
    this.index += 1;
    return '\\';
  }
}

// Splits a code string into tokens; throws INVALID_PAYLOAD with line and column when malformed.
export function tokenizePython(source: string): PyToken[] {
  return new Lexer(source).run();
}
