// AgentNet descriptions of drafts and the calls the OpenCUA conversion makes of them.
// docs/agentnet-raw-format.md §13, §13.1; docs/pyautogui-code.md §3
import type { ActionCall } from '../../shared/domain/action';
import type { StepKind } from '../../shared/domain/step';
import { callsToCode, descriptionToCalls, pyReprFloat, stage1Description } from '../code';
import type { ScreenSize, ScrollTick } from '../code';
import type { HotkeyDraft, PointerDraft, RunDraft, ScrollDraft, TapDraft } from './drafts';
import { hotkeyCall, pressCall } from '../code/call-args';
import { pyNumber } from '../../shared/python/py-value';
import { finalRunCalls } from './run-calls';
import type { AgentNetTarget } from '../agentnet/accessibility';
import { controlNounOf, TEXT_ENTRY_CONTROL_TYPES, type ControlType } from '../agentnet/role-map';

/** What a draft becomes: kind, AgentNet strings and calls. */
export type Described = {
  kind: StepKind;
  /** AgentNet description ('' when the exporter cannot represent the step). */
  description: string;
  /** Complete-row `action` (also the default label). */
  agentnetAction: string;
  calls: ActionCall[];
};

const KEYBOARD_ICON = '\u2328\uFE0F';
const CLICK_WORDS = ['Single', 'Double', 'Triple'] as const;
const MODIFIER_TOKENS: ReadonlySet<string> = new Set(['ctrl', 'alt', 'shift', 'cmd', 'win']);

/** Python `str()` of a coordinate: ints bare, floats like `repr`. */
function pyNumberText(value: number): string {
  return Number.isInteger(value) ? String(value) : pyReprFloat(value);
}

function convert(
  description: string,
  screen: ScreenSize,
  trace?: readonly ScrollTick[],
): ActionCall[] | null {
  try {
    return descriptionToCalls(description, screen, trace);
  } catch {
    return null;
  }
}

// ---- pointer ---------------------------------------------------------------------------------

function pointerKind(draft: PointerDraft): StepKind {
  if (draft.shape === 'drag') {
    return 'dragTo';
  }
  if (draft.button === 'right') {
    return 'rightClick';
  }
  if (draft.button === 'middle') {
    return 'middleClick';
  }
  if (draft.button === 'left' && draft.shape === 'click') {
    return draft.presses.length === 3
      ? 'tripleClick'
      : draft.presses.length === 2
        ? 'doubleClick'
        : 'click';
  }
  return 'click';
}

function pointerDescription(draft: PointerDraft): string {
  const [first] = draft.presses;
  if (first === undefined) {
    return '';
  }
  if (draft.shape === 'drag') {
    const from = `(${pyNumberText(first.x)}, ${pyNumberText(first.y)})`;
    const to = `(${pyNumberText(first.upX)}, ${pyNumberText(first.upY)})`;
    return `Drag from ${from} to ${to}`;
  }
  switch (draft.button) {
    case 'x2':
      // `Single x2 Click` aborts the OpenCUA conversion.
      return '';
    case 'x1':
      // The conversion knows only `Single x1 Click` (→ click); a long x1 press is written so too.
      return 'Single x1 Click';
    default:
      if (draft.shape === 'long') {
        return `Mouse long press ${draft.button} button`;
      }
      return `${CLICK_WORDS[Math.min(draft.presses.length, 3) - 1] ?? 'Single'} ${draft.button} Click`;
  }
}

// A click, multi-click, long press or drag.
export function describePointer(draft: PointerDraft, screen: ScreenSize): Described {
  const [first] = draft.presses;
  const coordinate = { x: first?.x ?? 0, y: first?.y ?? 0 };
  const agentnetAction =
    draft.shape === 'drag' ? 'drag' : draft.shape === 'long' ? 'mouse_press' : 'click';
  const description = pointerDescription(draft);
  const written = description === '' ? 'Single left Click' : description;
  const stage1 = stage1Description({ action: agentnetAction, description: written, coordinate });
  // x2 clicks have no AgentNet form; their calls are those of a left click at the same point.
  const calls = convert(stage1, screen) ?? [];
  return { kind: pointerKind(draft), description, agentnetAction, calls };
}

// ---- scroll ----------------------------------------------------------------------------------

function scrollIcon(dirX: number, dirY: number): string {
  if (dirX === 0) {
    return dirY > 0 ? '\u2B06\uFE0F' : '\u2B07\uFE0F';
  }
  if (dirY === 0) {
    return dirX > 0 ? '\u27A1\uFE0F' : '\u2B05\uFE0F';
  }
  if (dirY > 0) {
    return dirX > 0 ? '\u2197\uFE0F' : '\u2196';
  }
  return dirX > 0 ? '\u2198' : '\u2199';
}

// A scroll group: `Scroll <icon>×<notches>  ` plus the trace the conversion reads.
export function describeScroll(
  draft: ScrollDraft,
  trace: readonly ScrollTick[],
  screen: ScreenSize,
): Described {
  const sumX = trace.reduce((sum, tick) => sum + tick.dx, 0);
  const sumY = trace.reduce((sum, tick) => sum + tick.dy, 0);
  // Notches, not events (docs/action-reduction.md §B.7); equal to the tick count for wheel mice.
  const notches = Math.max(Math.abs(sumX), Math.abs(sumY));
  const description = `Scroll ${scrollIcon(draft.dirX, draft.dirY)}×${notches}  `;
  const calls = convert(description, screen, trace) ?? [];
  return {
    kind: draft.dirY !== 0 ? 'scroll' : 'hscroll',
    description,
    agentnetAction: 'scroll',
    calls,
  };
}

// ---- keyboard --------------------------------------------------------------------------------

function typeTokens(calls: readonly ActionCall[]): string {
  return calls
    .map((call) => {
      const args = Array.isArray(call.args) ? {} : call.args;
      if (call.name === 'write') {
        return typeof args.message === 'string' ? args.message : '';
      }
      const keys = Array.isArray(args.keys) ? args.keys : [];
      return `$${keys.map(String).join('')}$`;
    })
    .join('');
}

/** `⌨️ Type: …` when the OpenCUA conversion gives back exactly `calls`, else ''. */
function typeDescription(calls: readonly ActionCall[], screen: ScreenSize): string {
  if (calls.length === 0) {
    return '';
  }
  const description = `${KEYBOARD_ICON} Type: ${typeTokens(calls)}`;
  const converted = convert(description, screen);
  return converted !== null && callsToCode(converted) === callsToCode(calls) ? description : '';
}

// A keyboard run: write/press calls after backspace folding.
export function describeRun(draft: RunDraft, screen: ScreenSize): Described {
  const calls = finalRunCalls(draft);
  return {
    kind: calls.some((call) => call.name === 'write') ? 'write' : 'press',
    description: typeDescription(calls, screen),
    agentnetAction: 'type',
    calls,
  };
}

// A lone win/alt tap: press([key]).
export function describeTap(draft: TapDraft, screen: ScreenSize): Described {
  const calls = [pressCall([draft.key])];
  return {
    kind: 'press',
    description: typeDescription(calls, screen),
    agentnetAction: 'type',
    calls,
  };
}

function hotkeyToken(key: string): string {
  return MODIFIER_TOKENS.has(key) || Array.from(key).length > 1 ? `$${key}$` : key;
}

// A hotkey (repeated once per auto-repeat); the description states the chord once.
export function describeHotkey(draft: HotkeyDraft, screen: ScreenSize): Described {
  const single = hotkeyCall(draft.keys);
  const calls = Array.from({ length: draft.count }, () => hotkeyCall(draft.keys));
  const isWritable = draft.keys.every(
    (key) => key !== '' && !key.includes('$') && !key.includes(' + ') && !/[\n\r]/.test(key),
  );
  let description = isWritable
    ? `${KEYBOARD_ICON} Press: ${draft.keys.map(hotkeyToken).join(' + ')}`
    : '';
  if (description !== '') {
    const converted = convert(description, screen);
    // The pipeline turns shift-only chords into text or plain presses (docs/agentnet-raw-format.md
    // §13.11): written anyway, as long as the conversion does not abort.
    const isShiftOnly =
      draft.keys[0] === 'shift' && !draft.keys.includes('ctrl') && !draft.keys.includes('cmd');
    const isExact = converted !== null && callsToCode(converted) === callsToCode([single]);
    if (!(isExact || (isShiftOnly && converted !== null))) {
      description = '';
    }
  }
  return { kind: 'hotkey', description, agentnetAction: 'press', calls };
}

// ---- labels naming the element ---------------------------------------------------------------
// A recorded step's label (AgentNet vis `action`, the step instruction) names the element it acted
// on the way AgentNet annotators write them ("Click on Keep changes", "click on drop-down list"):
// verb + element name + the role noun of docs/agentnet-accessibility-mapping.md.

/** Longest element name a label quotes (characters); longer names end in `…`. */
export const LABEL_NAME_MAX_CHARS = 60;
/** Longest typed text a label quotes (characters); longer text ends in `…`. */
export const LABEL_TEXT_MAX_CHARS = 40;

function clip(text: string, maxChars: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  const chars = Array.from(flat);
  return chars.length > maxChars ? `${chars.slice(0, maxChars - 1).join('')}…` : flat;
}

/** `<name> <noun>`, the name alone when the role has no noun, the noun alone without a name. */
export function elementPhrase(name: string, controlType: ControlType): string {
  const noun = controlNounOf(controlType);
  const shown = clip(name, LABEL_NAME_MAX_CHARS);
  return [shown, noun].filter((part) => part !== '').join(' ');
}

function pointerVerb(draft: PointerDraft): string {
  if (draft.shape === 'drag') {
    return 'Drag from';
  }
  if (draft.shape === 'long') {
    return 'Long-press on';
  }
  const count = Math.min(draft.presses.length, 3);
  const button = draft.button === 'left' ? '' : `${draft.button}-`;
  if (count === 1) {
    return button === ''
      ? 'Click on'
      : `${button.charAt(0).toUpperCase()}${button.slice(1)}click on`;
  }
  const times = count === 2 ? 'Double' : 'Triple';
  return button === '' ? `${times}-click on` : `${times} ${button}click on`;
}

/** The label of a pointer step whose element is `target` ("Double-click on report.txt list
 * item"). */
export function pointerLabel(draft: PointerDraft, target: AgentNetTarget): string {
  const phrase = elementPhrase(target.title, target.control_type as ControlType);
  return `${pointerVerb(draft)} ${phrase}`;
}

/** The label of a keyboard run typed into `element` (a text-entry control), or null when the
 * run types nothing there. Text typed into a secure field is never quoted. */
export function runLabel(
  calls: readonly ActionCall[],
  element: { controlType: ControlType; name: string; isSecure: boolean },
): string | null {
  if (!TEXT_ENTRY_CONTROL_TYPES.has(element.controlType) || calls.length === 0) {
    return null;
  }
  const where = elementPhrase(element.name, element.controlType);
  if (element.isSecure) {
    return `Type in ${where}`;
  }
  const typing = typingPhrase(calls);
  return typing === null ? null : `${typing} in ${where}`;
}

/** Longest number of typed/pressed parts a label lists before it ends in `…`. */
const LABEL_MAX_PARTS = 4;

/**
 * What a run of write/press/hotkey calls does, in the order it was done ("Press backspace and
 * type "x"", "Type "a", press tab and type "b""), or null when it holds none of them. Each
 * piece of text stays apart from the next (a form filled with Tab is not one run-on string).
 */
export function typingPhrase(calls: readonly ActionCall[]): string | null {
  const parts: { kind: 'text' | 'keys'; value: string }[] = [];
  for (const call of calls) {
    const args = Array.isArray(call.args) ? {} : call.args;
    if (call.name === 'write' && typeof args.message === 'string' && args.message !== '') {
      const last = parts[parts.length - 1];
      if (last?.kind === 'text') {
        last.value += args.message;
      } else {
        parts.push({ kind: 'text', value: args.message });
      }
    } else if ((call.name === 'press' || call.name === 'hotkey') && Array.isArray(args.keys)) {
      const keys = args.keys.map(String);
      const chord = call.name === 'hotkey' ? [keys.join('+')] : keys;
      for (const key of chord) {
        const last = parts[parts.length - 1];
        if (last?.kind !== 'keys' || last.value !== key) {
          parts.push({ kind: 'keys', value: key });
        }
      }
    }
  }
  if (parts.length === 0) {
    return null;
  }
  const shown = parts
    .slice(0, LABEL_MAX_PARTS)
    .map((part) =>
      part.kind === 'text'
        ? `type "${clip(part.value, LABEL_TEXT_MAX_CHARS)}"`
        : `press ${part.value}`,
    );
  // consecutive presses read as one ("press tab, enter")
  const merged: string[] = [];
  for (const phrase of shown) {
    const prev = merged[merged.length - 1];
    if (prev?.startsWith('press ') && phrase.startsWith('press ')) {
      merged[merged.length - 1] = `${prev}, ${phrase.slice('press '.length)}`;
    } else {
      merged.push(phrase);
    }
  }
  const more = parts.length > LABEL_MAX_PARTS ? ' …' : '';
  const joined =
    merged.length === 1
      ? merged[0]!
      : `${merged.slice(0, -1).join(', ')} and ${merged[merged.length - 1]!}`;
  return `${joined.charAt(0).toUpperCase()}${joined.slice(1)}${more}`;
}

/**
 * The label of a recorded step that names no element: what it does, from its calls ("Press
 * ctrl+c", "Scroll down 3 times", "Type "hello""), or null to keep the type word (pointer steps
 * without an element, and calls it cannot phrase).
 */
export function callsLabel(kind: StepKind, calls: readonly ActionCall[]): string | null {
  if (kind === 'scroll' || kind === 'hscroll') {
    let total = 0;
    let horizontal = kind === 'hscroll';
    for (const call of calls) {
      const args = Array.isArray(call.args) ? {} : call.args;
      const clicks = pyNumber(args.clicks);
      if ((call.name === 'scroll' || call.name === 'hscroll') && clicks !== null) {
        total += clicks;
        horizontal = call.name === 'hscroll';
      }
    }
    if (total === 0) {
      return null;
    }
    const direction = horizontal ? (total > 0 ? 'right' : 'left') : total > 0 ? 'up' : 'down';
    const n = Math.abs(total);
    return `Scroll ${direction} ${n === 1 ? 'once' : `${n} times`}`;
  }
  if (kind === 'hotkey' || kind === 'press' || kind === 'write') {
    return typingPhrase(calls);
  }
  return null;
}
