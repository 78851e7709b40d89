// Tolerant parser of pyautogui/computer code strings into canonical calls (docs/pyautogui-code.md §1).
import type { ActionCall, PyValue } from '../../shared/domain/action';
import type { PyToken } from './py-lexer';
import { codeSyntaxError, tokenizePython } from './py-lexer';
import type { ParsedArgument } from './normalize-call';
import { normalizeCall } from './normalize-call';
import { pyFloat, pyInt } from '../../shared/python/py-value';

const PREFIXES: ReadonlySet<string> = new Set(['pyautogui', 'computer']);
const CONSTANTS: ReadonlyMap<string, PyValue> = new Map<string, PyValue>([
  ['True', true],
  ['False', false],
  ['None', null],
]);

class Parser {
  private index = 0;

  constructor(private readonly tokens: readonly PyToken[]) {}

  private peek(offset = 0): PyToken {
    const token = this.tokens[this.index + offset] ?? this.tokens[this.tokens.length - 1];
    if (token === undefined) {
      throw codeSyntaxError({ line: 1, column: 1 }, 'no tokens');
    }
    return token;
  }

  private next(): PyToken {
    const token = this.peek();
    if (token.kind !== 'end') {
      this.index += 1;
    }
    return token;
  }

  private isOp(text: string, offset = 0): boolean {
    const token = this.peek(offset);
    return token.kind === 'op' && token.text === text;
  }

  private describe(token: PyToken): string {
    if (token.kind === 'end') {
      return 'end of input';
    }
    if (token.kind === 'newline') {
      return 'end of line';
    }
    return JSON.stringify(token.text);
  }

  private expectOp(text: string): PyToken {
    const token = this.next();
    if (token.kind !== 'op' || token.text !== text) {
      throw codeSyntaxError(token, `expected "${text}" but found ${this.describe(token)}`);
    }
    return token;
  }

  private skipSeparators(): void {
    while (this.peek().kind === 'newline' || this.isOp(';')) {
      this.next();
    }
  }

  program(): ActionCall[] {
    const calls: ActionCall[] = [];
    this.skipSeparators();
    while (this.peek().kind !== 'end') {
      calls.push(this.statement());
      const after = this.peek();
      if (after.kind !== 'end' && after.kind !== 'newline' && !this.isOp(';')) {
        throw codeSyntaxError(after, `expected end of line but found ${this.describe(after)}`);
      }
      this.skipSeparators();
    }
    return calls;
  }

  private statement(): ActionCall {
    const prefix = this.next();
    if (prefix.kind !== 'name' || !PREFIXES.has(prefix.text)) {
      throw codeSyntaxError(
        prefix,
        `expected a call starting with "pyautogui." or "computer." but found ${this.describe(prefix)}`,
      );
    }
    this.expectOp('.');
    const name = this.next();
    if (name.kind !== 'name') {
      throw codeSyntaxError(name, `expected a call name but found ${this.describe(name)}`);
    }
    this.expectOp('(');
    const args: ParsedArgument[] = [];
    while (!this.isOp(')')) {
      args.push(this.argument(args));
      if (!this.isOp(')')) {
        this.expectOp(',');
      }
    }
    this.expectOp(')');
    return normalizeCall(name.text, name, args);
  }

  private argument(previous: readonly ParsedArgument[]): ParsedArgument {
    const start = this.peek();
    if (start.kind === 'name' && this.isOp('=', 1)) {
      this.next();
      this.next();
      return {
        keyword: start.text,
        value: this.expression(),
        line: start.line,
        column: start.column,
      };
    }
    const value = this.expression();
    if (previous.some((arg) => arg.keyword !== null)) {
      throw codeSyntaxError(start, 'positional argument follows keyword argument');
    }
    return { keyword: null, value, line: start.line, column: start.column };
  }

  private expression(): PyValue {
    const token = this.next();
    if (token.kind === 'op' && (token.text === '-' || token.text === '+')) {
      const operand = this.expression();
      if (typeof operand !== 'object' || operand === null || Array.isArray(operand)) {
        throw codeSyntaxError(token, `unary ${token.text} needs a number`);
      }
      if (token.text === '+') {
        return operand;
      }
      return 'int' in operand ? pyInt(-operand.int) : pyFloat(-operand.float);
    }
    if (token.kind === 'number') {
      return token.value;
    }
    if (token.kind === 'string') {
      // adjacent literals concatenate: 'a' 'b' == 'ab'
      let value = token.value;
      while (this.peek().kind === 'string') {
        const more = this.next();
        value += more.kind === 'string' ? more.value : '';
      }
      return value;
    }
    if (token.kind === 'name') {
      const constant = CONSTANTS.get(token.text);
      if (constant !== undefined) {
        return constant;
      }
      throw codeSyntaxError(token, `unsupported name ${JSON.stringify(token.text)} in a value`);
    }
    if (token.kind === 'op' && token.text === '[') {
      return this.sequence(']').items;
    }
    if (token.kind === 'op' && token.text === '(') {
      // a tuple becomes a list; `(v)` is just v
      const { items, hasComma } = this.sequence(')');
      const [only] = items;
      return items.length === 1 && !hasComma && only !== undefined ? only : items;
    }
    throw codeSyntaxError(token, `expected a value but found ${this.describe(token)}`);
  }

  private sequence(closing: string): { items: PyValue[]; hasComma: boolean } {
    const items: PyValue[] = [];
    let hasComma = false;
    while (!this.isOp(closing)) {
      items.push(this.expression());
      if (!this.isOp(closing)) {
        this.expectOp(',');
        hasComma = true;
      }
    }
    this.expectOp(closing);
    return { items, hasComma };
  }
}

// Parses code (one call per line or `;`-separated; comments, blank lines and multi-line calls
// allowed) into canonical calls: aliases resolved (`typewrite` → write, `triple_click` →
// tripleClick), positional arguments named, press/hotkey keys as lists, `press(…, presses=N)`
// expanded into the key list repeated N times. Throws INVALID_PAYLOAD naming line and column.
export function parseCode(code: string): ActionCall[] {
  return new Parser(tokenizePython(code)).program();
}
