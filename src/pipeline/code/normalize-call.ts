// Parsed call syntax → canonical ActionCall: aliases, positional → keyword, press/hotkey key lists.
import type { ActionCall, ActionName, PyValue } from '../../shared/domain/action';
import type { SourcePosition } from './py-lexer';
import { codeSyntaxError } from './py-lexer';
import { isPyInt, pyNumber } from '../../shared/python/py-value';

/** One argument as written (positional when `keyword` is null). */
export type ParsedArgument = SourcePosition & { keyword: string | null; value: PyValue };

/** Accepted call names (canonical, snake_case and pyautogui aliases) → action name. */
const CALL_NAMES: ReadonlyMap<string, ActionName> = new Map<string, ActionName>([
  ['click', 'click'],
  ['doubleClick', 'doubleClick'],
  ['double_click', 'doubleClick'],
  ['tripleClick', 'tripleClick'],
  ['triple_click', 'tripleClick'],
  ['rightClick', 'rightClick'],
  ['right_click', 'rightClick'],
  ['middleClick', 'middleClick'],
  ['middle_click', 'middleClick'],
  ['moveTo', 'moveTo'],
  ['move_to', 'moveTo'],
  ['dragTo', 'dragTo'],
  ['drag_to', 'dragTo'],
  ['scroll', 'scroll'],
  ['hscroll', 'hscroll'],
  ['write', 'write'],
  ['typewrite', 'write'],
  ['press', 'press'],
  ['hotkey', 'hotkey'],
  ['wait', 'wait'],
  ['terminate', 'terminate'],
]);

/**
 * Parameter names in signature order (pyautogui's own signatures; `seconds` for wait and `status`
 * for terminate). Positional arguments take these names; known keywords are put in this order.
 */
export const CALL_PARAMETERS: Readonly<Record<ActionName, readonly string[]>> = {
  click: ['x', 'y', 'clicks', 'interval', 'button', 'duration', 'tween'],
  doubleClick: ['x', 'y', 'interval', 'button', 'duration', 'tween'],
  tripleClick: ['x', 'y', 'interval', 'button', 'duration', 'tween'],
  rightClick: ['x', 'y', 'duration', 'tween'],
  middleClick: ['x', 'y', 'duration', 'tween'],
  moveTo: ['x', 'y', 'duration', 'tween'],
  dragTo: ['x', 'y', 'duration', 'tween', 'button'],
  scroll: ['clicks', 'x', 'y'],
  hscroll: ['clicks', 'x', 'y'],
  write: ['message', 'interval'],
  press: ['keys', 'presses', 'interval'],
  hotkey: ['keys', 'interval'],
  wait: ['seconds'],
  terminate: ['status'],
};
const POINT_CALLS: ReadonlySet<ActionName> = new Set<ActionName>([
  'click',
  'doubleClick',
  'tripleClick',
  'rightClick',
  'middleClick',
  'moveTo',
  'dragTo',
]);

// The action name for a written call name (`typewrite` → write, `triple_click` → tripleClick).
export function actionNameOf(written: string): ActionName | null {
  return CALL_NAMES.get(written) ?? null;
}

/** `click((x, y))`: a single positional pair stands for x and y. */
function expandPointTuple(name: ActionName, args: readonly ParsedArgument[]): ParsedArgument[] {
  const [only, ...others] = args;
  if (
    !POINT_CALLS.has(name) ||
    only === undefined ||
    only.keyword !== null ||
    others.some((arg) => arg.keyword === null) ||
    !Array.isArray(only.value) ||
    only.value.length !== 2 ||
    !only.value.every((item) => pyNumber(item) !== null)
  ) {
    return [...args];
  }
  const [x = null, y = null] = only.value;
  return [{ ...only, value: x }, { ...only, value: y }, ...others];
}

/** `hotkey('ctrl', 'c')` / `hotkey(['ctrl', 'c'])` → one `keys` argument. */
function collectHotkeyKeys(args: readonly ParsedArgument[]): ParsedArgument[] {
  const positional = args.filter((arg) => arg.keyword === null);
  const [first] = positional;
  if (first === undefined) {
    return [...args];
  }
  const keys: PyValue =
    positional.length === 1 && Array.isArray(first.value)
      ? first.value
      : positional.map((arg) => arg.value);
  return [
    { ...first, keyword: 'keys', value: keys },
    ...args.filter((arg) => arg.keyword !== null),
  ];
}

function nameArguments(
  name: ActionName,
  args: readonly ParsedArgument[],
): Map<string, ParsedArgument> {
  const parameters = CALL_PARAMETERS[name];
  const named = new Map<string, ParsedArgument>();
  let position = 0;
  for (const arg of args) {
    let keyword = arg.keyword;
    if (keyword === null) {
      keyword = parameters[position] ?? null;
      position += 1;
      if (keyword === null) {
        throw codeSyntaxError(arg, `too many positional arguments for ${name}`);
      }
    }
    if (named.has(keyword)) {
      throw codeSyntaxError(arg, `${name} got multiple values for argument ${keyword}`);
    }
    named.set(keyword, { ...arg, keyword });
  }
  return named;
}

function asKeyList(name: ActionName, arg: ParsedArgument): PyValue[] {
  if (typeof arg.value === 'string') {
    return [arg.value];
  }
  if (Array.isArray(arg.value)) {
    return arg.value;
  }
  throw codeSyntaxError(arg, `${name} keys must be a string or a list`);
}

/** press: keys as a list; `presses=N` repeats the key sequence N times and is dropped. */
function normalisePress(named: Map<string, ParsedArgument>): void {
  const keysArg = named.get('keys');
  if (keysArg !== undefined) {
    named.set('keys', { ...keysArg, value: asKeyList('press', keysArg) });
  }
  const presses = named.get('presses');
  if (presses === undefined) {
    return;
  }
  if (!isPyInt(presses.value)) {
    throw codeSyntaxError(presses, 'press presses must be an int');
  }
  const keys = keysArg === undefined ? [] : asKeyList('press', keysArg);
  const repeated: PyValue[] = [];
  for (let i = 0; i < presses.value.int; i += 1) {
    repeated.push(...keys);
  }
  named.set('keys', { ...(keysArg ?? presses), keyword: 'keys', value: repeated });
  named.delete('presses');
}

// Builds the canonical call from a written name and its arguments (positions for errors).
export function normalizeCall(
  written: string,
  at: SourcePosition,
  parsedArgs: readonly ParsedArgument[],
): ActionCall {
  let name = actionNameOf(written);
  if (name === null) {
    throw codeSyntaxError(at, `unknown call ${JSON.stringify(written)}`);
  }
  let args = expandPointTuple(name, parsedArgs);
  if (name === 'hotkey') {
    args = collectHotkeyKeys(args);
  }
  const named = nameArguments(name, args);
  // `typewrite(['a', 'enter'])` presses keys rather than typing text.
  const message = named.get('message');
  if (name === 'write' && message !== undefined && Array.isArray(message.value)) {
    name = 'press';
    named.delete('message');
    named.set('keys', { ...message, keyword: 'keys' });
  }
  if (name === 'press') {
    normalisePress(named);
  }
  const keys = named.get('keys');
  if (name === 'hotkey' && keys !== undefined) {
    named.set('keys', { ...keys, value: asKeyList('hotkey', keys) });
  }
  const order = CALL_PARAMETERS[name];
  const ordered = [
    ...order.flatMap((parameter) => {
      const arg = named.get(parameter);
      return arg === undefined ? [] : [[parameter, arg.value] as const];
    }),
    ...[...named]
      .filter(([keyword]) => !order.includes(keyword))
      .map(([k, a]) => [k, a.value] as const),
  ];
  return { name, args: Object.fromEntries(ordered) };
}
