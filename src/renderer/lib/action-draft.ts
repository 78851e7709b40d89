// The structured action editor's model: a draft with every field of every action kind, its
// validation, and its conversion to ActionCalls. Only a valid draft converts, so the editor can
// only ever produce well-formed actions (docs/pyautogui-code.md §1).
import { CALL_BUTTONS, type ActionCall, type PyValue } from '../../shared/domain';
import { callArg, callKeys, callPoint, pyNumberOf, pyStringOf } from './py-value';
import { round4, type OverlayModel } from './overlay';

/** Action kinds the editor offers (`scroll` covers vertical and horizontal notches). */
export const EDITABLE_KINDS = [
  'click',
  'doubleClick',
  'tripleClick',
  'rightClick',
  'middleClick',
  'moveTo',
  'dragTo',
  'scroll',
  'write',
  'press',
  'hotkey',
  'wait',
  'terminate',
] as const;
/** One of {@link EDITABLE_KINDS}. */
export type EditableKind = (typeof EDITABLE_KINDS)[number];

/** Human names of the kinds. */
export const KIND_LABELS: Record<EditableKind, string> = {
  click: 'Click',
  doubleClick: 'Double click',
  tripleClick: 'Triple click',
  rightClick: 'Right click',
  middleClick: 'Middle click',
  moveTo: 'Move pointer',
  dragTo: 'Drag',
  scroll: 'Scroll',
  write: 'Type text',
  press: 'Press keys',
  hotkey: 'Hotkey',
  wait: 'Wait',
  terminate: 'Terminate',
};

/** A normalised screen point ([0, 1] on both axes). */
export type NormPoint = { x: number; y: number };

/** Mouse buttons a drag may use. */
export const DRAG_BUTTONS = CALL_BUTTONS;

/** Every field of every kind, so switching kinds keeps what was typed. */
export type ActionDraft = {
  kind: EditableKind;
  /** Click target, drag start, move target or scroll position. */
  point: NormPoint | null;
  /** Drag end. */
  point2: NormPoint | null;
  button: (typeof DRAG_BUTTONS)[number];
  /** Vertical wheel notches (int; > 0 = up). */
  clicks: number;
  /** Horizontal wheel notches (int; > 0 = right). */
  hclicks: number;
  message: string;
  keys: string[];
  status: 'success' | 'failure';
};

/** Field → problem, empty when the draft is valid. */
export type DraftErrors = Partial<
  Record<'kind' | 'point' | 'point2' | 'clicks' | 'message' | 'keys', string>
>;

const POINTER_KINDS: ReadonlySet<EditableKind> = new Set([
  'click',
  'doubleClick',
  'tripleClick',
  'rightClick',
  'middleClick',
  'moveTo',
]);

/** Named keys of the pyautogui vocabulary the reducer produces (plus single characters). */
export const KNOWN_KEY_NAMES: ReadonlySet<string> = new Set([
  'ctrl',
  'alt',
  'shift',
  'cmd',
  'win',
  'fn',
  'enter',
  'esc',
  'tab',
  'space',
  'backspace',
  'delete',
  'insert',
  'home',
  'end',
  'pageup',
  'pagedown',
  'up',
  'down',
  'left',
  'right',
  'capslock',
  'numlock',
  'scrolllock',
  'printscreen',
  'pause',
  'apps',
  'volumeup',
  'volumedown',
  'volumemute',
  'playpause',
  'nexttrack',
  'prevtrack',
  ...Array.from({ length: 24 }, (_, i) => `f${i + 1}`),
]);

// True when the kind takes one point (clicks and moveTo).
export function isPointerKind(kind: EditableKind): boolean {
  return POINTER_KINDS.has(kind);
}

// True when the kind has a point the keyframe click can set.
export function kindTakesPoint(kind: EditableKind): boolean {
  return isPointerKind(kind) || kind === 'dragTo' || kind === 'scroll';
}

// True for a key the action space knows: a named key or one printable, non-space character.
export function isValidKeyName(key: string): boolean {
  return KNOWN_KEY_NAMES.has(key) || /^[^\p{C}\s]$/u.test(key);
}

// A draft with neutral values for every field.
export function emptyDraft(kind: EditableKind = 'click'): ActionDraft {
  return {
    kind,
    point: null,
    point2: null,
    button: 'left',
    clicks: 0,
    hclicks: 0,
    message: '',
    keys: [],
    status: 'success',
  };
}

// The draft describing existing calls (unknown shapes fall back to an empty click draft).
export function draftFromCalls(calls: readonly ActionCall[]): ActionDraft {
  const draft = emptyDraft();
  const main = calls.find((c) => c.name !== 'moveTo') ?? calls[0];
  if (!main) {
    return draft;
  }
  const move = calls.find((c) => c.name === 'moveTo');
  switch (main.name) {
    case 'click':
    case 'doubleClick':
    case 'tripleClick':
    case 'rightClick':
    case 'middleClick':
    case 'moveTo':
      return { ...draft, kind: main.name, point: callPoint(main) };
    case 'dragTo': {
      const button = pyStringOf(callArg(main, 'button', 2));
      return {
        ...draft,
        kind: 'dragTo',
        point: move ? callPoint(move) : null,
        point2: callPoint(main),
        button: DRAG_BUTTONS.find((b) => b === button) ?? 'left',
      };
    }
    case 'scroll':
    case 'hscroll': {
      let clicks = 0;
      let hclicks = 0;
      for (const c of calls) {
        const n = pyNumberOf(callArg(c, 'clicks', 0)) ?? 0;
        if (c.name === 'scroll') {
          clicks += n;
        } else if (c.name === 'hscroll') {
          hclicks += n;
        }
      }
      return { ...draft, kind: 'scroll', point: move ? callPoint(move) : null, clicks, hclicks };
    }
    case 'write':
      return {
        ...draft,
        kind: 'write',
        message: calls
          .filter((c) => c.name === 'write')
          .map((c) => pyStringOf(callArg(c, 'message', 0)) ?? '')
          .join(''),
      };
    case 'press':
    case 'hotkey':
      return { ...draft, kind: main.name, keys: callKeys(main) ?? [] };
    case 'wait':
      return { ...draft, kind: 'wait' };
    case 'terminate': {
      const status = pyStringOf(callArg(main, 'status', 0));
      return { ...draft, kind: 'terminate', status: status === 'failure' ? 'failure' : 'success' };
    }
  }
}

function pointError(p: NormPoint | null, what: string): string | undefined {
  if (!p) {
    return `Set the ${what}: click on the keyframe or type x and y.`;
  }
  const ok = (v: number) => Number.isFinite(v) && v >= 0 && v <= 1;
  if (!ok(p.x) || !ok(p.y)) {
    return `The ${what} must lie on the screen (x and y between 0 and 1).`;
  }
  return undefined;
}

// Problems of a draft, by field; `{}` when it converts to a valid action.
export function validateDraft(draft: ActionDraft): DraftErrors {
  const errors: DraftErrors = {};
  const put = (field: keyof DraftErrors, message: string | undefined) => {
    if (message !== undefined) {
      errors[field] = message;
    }
  };
  switch (draft.kind) {
    case 'click':
    case 'doubleClick':
    case 'tripleClick':
    case 'rightClick':
    case 'middleClick':
    case 'moveTo':
      put('point', pointError(draft.point, 'target point'));
      break;
    case 'dragTo':
      put('point', pointError(draft.point, 'drag start'));
      put('point2', pointError(draft.point2, 'drag end'));
      break;
    case 'scroll':
      if (!Number.isInteger(draft.clicks) || !Number.isInteger(draft.hclicks)) {
        put('clicks', 'Scroll notches must be whole numbers.');
      } else if (draft.clicks === 0 && draft.hclicks === 0) {
        put('clicks', 'Scroll at least one notch (up/down or left/right).');
      }
      if (draft.point) {
        put('point', pointError(draft.point, 'scroll position'));
      }
      break;
    case 'write':
      if (draft.message.length === 0) {
        put('message', 'Type the text to write.');
      }
      break;
    case 'press':
    case 'hotkey': {
      if (draft.keys.length === 0) {
        put('keys', 'Add at least one key.');
      }
      const bad = draft.keys.filter((k) => !isValidKeyName(k));
      if (bad.length > 0) {
        put('keys', `Unknown key${bad.length > 1 ? 's' : ''}: ${bad.join(', ')}.`);
      }
      break;
    }
    case 'wait':
    case 'terminate':
      break;
  }
  return errors;
}

// Points keep their precision: an untouched point saves exactly as it was (picked and typed
// points are already at 4 decimals).
function pointArgs(p: NormPoint): Record<string, PyValue> {
  return { x: { float: p.x }, y: { float: p.y } };
}

// The calls of a valid draft; null when the draft has errors.
export function draftToCalls(draft: ActionDraft): ActionCall[] | null {
  if (Object.keys(validateDraft(draft)).length > 0) {
    return null;
  }
  switch (draft.kind) {
    case 'click':
    case 'doubleClick':
    case 'tripleClick':
    case 'rightClick':
    case 'middleClick':
    case 'moveTo':
      return draft.point ? [{ name: draft.kind, args: pointArgs(draft.point) }] : null;
    case 'dragTo':
      return draft.point && draft.point2
        ? [
            { name: 'moveTo', args: pointArgs(draft.point) },
            { name: 'dragTo', args: { ...pointArgs(draft.point2), button: draft.button } },
          ]
        : null;
    case 'scroll': {
      const calls: ActionCall[] = [];
      if (draft.point) {
        calls.push({ name: 'moveTo', args: pointArgs(draft.point) });
      }
      // horizontal first, like the reference converter (docs/pyautogui-code.md §3.3)
      if (draft.hclicks !== 0) {
        calls.push({ name: 'hscroll', args: { clicks: { int: draft.hclicks } } });
      }
      if (draft.clicks !== 0) {
        calls.push({ name: 'scroll', args: { clicks: { int: draft.clicks } } });
      }
      return calls;
    }
    case 'write':
      return [{ name: 'write', args: { message: draft.message } }];
    case 'press':
    case 'hotkey':
      return [{ name: draft.kind, args: { keys: [...draft.keys] } }];
    case 'wait':
      return [{ name: 'wait', args: {} }];
    case 'terminate':
      return [{ name: 'terminate', args: { status: draft.status } }];
  }
}

/** Which point a keyframe click sets. */
export type PointTarget = 'point' | 'point2';

// The draft after a keyframe click at a normalised point.
export function setDraftPoint(draft: ActionDraft, target: PointTarget, p: NormPoint): ActionDraft {
  const point = { x: round4(p.x), y: round4(p.y) };
  return target === 'point2' ? { ...draft, point2: point } : { ...draft, point };
}

// Splits typed key text (`ctrl+shift+t`, `ctrl, c`) into key names, lower-casing named keys.
export function parseKeysText(text: string): string[] {
  const trimmed = text.trim();
  if ([...trimmed].length === 1) {
    return [trimmed];
  }
  return text
    .split(/\s*[+,]\s*|\s+/)
    .map((k) => k.trim())
    .filter((k) => k.length > 0)
    .map((k) => (k.length > 1 ? k.toLowerCase() : k));
}

// What a draft looks like on the keyframe, also while it is still incomplete.
export function draftOverlay(draft: ActionDraft): OverlayModel {
  const model: OverlayModel = {
    click: null,
    pointer: null,
    drag: null,
    scroll: null,
    text: null,
    keys: null,
  };
  switch (draft.kind) {
    case 'click':
    case 'doubleClick':
    case 'tripleClick':
    case 'rightClick':
    case 'middleClick':
      model.click = draft.point ? { ...draft.point, variant: draft.kind } : null;
      break;
    case 'moveTo':
      model.pointer = draft.point;
      break;
    case 'dragTo':
      if (draft.point && draft.point2) {
        model.drag = { points: [draft.point, draft.point2] };
      } else {
        model.pointer = draft.point ?? draft.point2;
      }
      break;
    case 'scroll':
      model.pointer = draft.point;
      model.scroll =
        draft.clicks !== 0 || draft.hclicks !== 0 ? { dx: draft.hclicks, dy: draft.clicks } : null;
      break;
    case 'write':
      model.text = draft.message;
      break;
    case 'press':
    case 'hotkey':
      model.keys = draft.kind === 'hotkey' ? [draft.keys.join('+')] : [...draft.keys];
      break;
    case 'wait':
    case 'terminate':
      break;
  }
  return model;
}
