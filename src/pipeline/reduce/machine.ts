// Pass 1: the event state machine (buttons, scroll groups, modifier holds, keyboard runs,
// hotkeys). Produces drafts and the owner of every non-move event and every hold move.
// docs/action-reduction.md §C.4–§C.6
import type { MouseButton, RawEvent } from '../../shared/domain/raw-event';
import { EVENT_FLAGS } from '../../shared/domain/raw-event';
import type {
  Draft,
  DraftDiagnostic,
  PointerDraft,
  RunDraft,
  ScrollDraft,
  Stamp,
  StrokeDraft,
} from './drafts';
import {
  createHotkeyDraft,
  createPointerDraft,
  createRunDraft,
  createScrollDraft,
  createTapDraft,
  resolveDraft,
} from './drafts';
import type { ModifierName, NormalizedKey } from './key-names';
import { canonicalModifiers, isPrintableText, LOCK_KEYS } from './key-names';
import type { PreparedEvents } from './prepare';
import { applyKeystroke } from './run-calls';
import type { ReduceConstants, ReduceContext, UnownedReason } from './types';

type OpenPress = {
  draft: PointerDraft;
  button: MouseButton;
  downPos: number;
  x: number;
  y: number;
  start: Stamp;
  /** Position of the last input event before this press (multi-click adjacency). */
  previousInputPos: number;
};

type ModifierHold = {
  name: ModifierName;
  isAltGr: boolean;
  /** Down, auto-repeats and up positions. */
  events: number[];
  start: Stamp;
  owner: Draft | null;
  /** Another key-down, a button-down or a tick happened during the hold. */
  hasOtherInput: boolean;
};

type KeyDown = { owner: Draft };

/** Output of the event pass. */
export type MachineResult = {
  /** Every draft in creation order (merged ones included; see `resolveDraft`). */
  drafts: Draft[];
  /** Owning draft's `seq` per position (non-move events and hold moves), −1 otherwise. */
  ownerOf: Int32Array;
};

const CHORD_MODIFIERS: ReadonlySet<ModifierName> = new Set(['ctrl', 'alt', 'cmd', 'win']);

function sign(value: number): number {
  return value > 0 ? 1 : value < 0 ? -1 : 0;
}

/** The event pass over prepared events; call `run()` once. */
export class ReductionMachine {
  private readonly drafts: Draft[] = [];
  private readonly ownerOf: Int32Array;
  private readonly openPresses = new Map<MouseButton, OpenPress>();
  /** Open presses in opening order (moves belong to the latest). */
  private readonly pressStack: OpenPress[] = [];
  private readonly holds = new Map<string, ModifierHold>();
  private readonly keysDown = new Map<string, KeyDown>();
  private currentRun: RunDraft | null = null;
  private scroll: ScrollDraft | null = null;
  private clickGroup: PointerDraft | null = null;
  private lastInputPos = -1;
  /** Incremented by every non-wheel input event (closes scroll groups). */
  private interruptSerial = 0;
  private lastKeyDownIdentity: string | null = null;
  private pointerX = 0;
  private pointerY = 0;

  constructor(
    private readonly prepared: PreparedEvents,
    private readonly context: ReduceContext,
    private readonly constants: ReduceConstants,
  ) {
    this.ownerOf = new Int32Array(prepared.events.length).fill(-1);
  }

  // Runs the pass and closes whatever is still open at the end of the stream.
  run(): MachineResult {
    const { events, unowned } = this.prepared;
    for (let pos = 0; pos < events.length; pos += 1) {
      if (unowned.has(pos)) {
        continue;
      }
      const event = events[pos] as RawEvent;
      if (event.kind === 'move') {
        this.onMove(pos, event);
        continue;
      }
      const isInput = this.onInput(pos, event);
      if (isInput) {
        this.lastInputPos = pos;
        if (event.kind !== 'wheel') {
          this.interruptSerial += 1;
        }
      }
    }
    this.finish();
    return { drafts: this.drafts, ownerOf: this.ownerOf };
  }

  private onInput(pos: number, event: RawEvent): boolean {
    switch (event.kind) {
      case 'down':
        return this.onButtonDown(pos, event);
      case 'up':
        return this.onButtonUp(pos, event);
      case 'wheel':
        return this.onWheel(pos, event);
      case 'keydown':
        return this.onKeyDown(pos, event);
      case 'keyup':
        return this.onKeyUp(pos, event);
      default:
        return false;
    }
  }

  private stamp(pos: number): Stamp {
    return { s: this.prepared.tS[pos] ?? 0, ms: this.prepared.events[pos]?.tMs ?? 0 };
  }

  private lastStamp(): Stamp {
    return this.stamp(this.prepared.events.length - 1);
  }

  private own(pos: number, draft: Draft): void {
    this.ownerOf[pos] = draft.seq;
    draft.main.push(pos);
  }

  private markUnowned(pos: number, reason: UnownedReason): void {
    this.prepared.unowned.set(pos, reason);
  }

  private diagnose(draft: Draft, diagnostic: DraftDiagnostic): void {
    draft.diagnostics.push(diagnostic);
  }

  private logical(distancePx: number): number {
    return distancePx / this.context.scaleFactor;
  }

  // ---- pointer -------------------------------------------------------------------------------

  private onMove(pos: number, event: RawEvent): void {
    this.pointerX = event.x ?? this.pointerX;
    this.pointerY = event.y ?? this.pointerY;
    const press = this.pressStack[this.pressStack.length - 1];
    if (press !== undefined) {
      this.ownerOf[pos] = press.draft.seq;
      press.draft.hold.push(pos);
    }
  }

  private onButtonDown(pos: number, event: RawEvent): boolean {
    this.currentRun = null;
    const button = event.button ?? 'left';
    const x = event.x ?? this.pointerX;
    const y = event.y ?? this.pointerY;
    const start = this.stamp(pos);
    const previous = this.openPresses.get(button);
    if (previous !== undefined) {
      // §C.4.1: a second down closes the open press at this time.
      this.closePress(previous, null, start, x, y);
    }
    this.pointerX = x;
    this.pointerY = y;
    const draft = createPointerDraft(this.drafts.length, start, button);
    this.drafts.push(draft);
    this.own(pos, draft);
    draft.modifiers = this.consumeHolds(draft);
    const press: OpenPress = {
      draft,
      button,
      downPos: pos,
      x,
      y,
      start,
      previousInputPos: this.lastInputPos,
    };
    this.openPresses.set(button, press);
    this.pressStack.push(press);
    return true;
  }

  private onButtonUp(pos: number, event: RawEvent): boolean {
    const button = event.button ?? 'left';
    const press = this.openPresses.get(button);
    if (press === undefined) {
      this.markUnowned(pos, 'orphan-release');
      return false;
    }
    const x = event.x ?? this.pointerX;
    const y = event.y ?? this.pointerY;
    this.pointerX = x;
    this.pointerY = y;
    this.closePress(press, pos, this.stamp(pos), x, y);
    return true;
  }

  private closePress(
    press: OpenPress,
    upPos: number | null,
    end: Stamp,
    upX: number,
    upY: number,
  ): void {
    this.openPresses.delete(press.button);
    this.pressStack.splice(this.pressStack.indexOf(press), 1);
    const { draft } = press;
    if (upPos === null) {
      this.diagnose(draft, {
        code: 'MISSING_UP',
        pos: press.downPos,
        detail: `${press.button} button-down has no button-up`,
      });
    } else {
      this.own(upPos, draft);
    }
    draft.presses.push({
      downPos: press.downPos,
      upPos,
      x: press.x,
      y: press.y,
      upX,
      upY,
      start: press.start,
      end,
    });
    draft.end = end;
    const distance = this.logical(Math.hypot(upX - press.x, upY - press.y));
    if (distance > this.constants.dragMinPx) {
      draft.shape = 'drag';
      if (press.button !== 'left') {
        this.diagnose(draft, {
          code: 'NON_LEFT_DRAG_LOSSY',
          pos: press.downPos,
          detail: `${press.button} drag exports as a left drag`,
        });
      }
    } else if (end.s - press.start.s > this.constants.longPressS) {
      draft.shape = 'long';
    }
    if (press.button === 'x1' || press.button === 'x2') {
      this.diagnose(draft, {
        code: 'UNSUPPORTED_BUTTON',
        pos: press.downPos,
        detail: `${press.button} clicks are not in the action space`,
      });
    }
    if (draft.modifiers.length > 0) {
      this.diagnose(draft, {
        code: 'MODIFIER_CLICK_LOSSY',
        pos: press.downPos,
        detail: `modifiers ${draft.modifiers.join('+')} are not exported`,
      });
    }
    this.groupClick(press, upPos);
  }

  // §C.4.5: consecutive left clicks at one point within the gap form double/triple clicks.
  private groupClick(press: OpenPress, upPos: number | null): void {
    const { draft } = press;
    const isPlainLeftClick = draft.shape === 'click' && press.button === 'left';
    const group = this.clickGroup;
    const last = group?.presses[group.presses.length - 1];
    const first = group?.presses[0];
    const canJoin =
      isPlainLeftClick &&
      group !== null &&
      last !== undefined &&
      first !== undefined &&
      group.presses.length < this.constants.maxClickCount &&
      last.upPos !== null &&
      press.previousInputPos === last.upPos &&
      press.start.s - last.start.s <= this.constants.multiClickGapS &&
      this.logical(Math.hypot(press.x - first.x, press.y - first.y)) <=
        this.constants.multiClickRadiusPx;
    if (!canJoin || group === null) {
      this.clickGroup = isPlainLeftClick && upPos !== null ? draft : null;
      return;
    }
    group.presses.push(...draft.presses);
    group.main.push(...draft.main);
    group.hold.push(...draft.hold);
    group.diagnostics.push(...draft.diagnostics);
    group.modifiers = canonicalModifiers([...group.modifiers, ...draft.modifiers]);
    group.end = draft.end;
    draft.mergedInto = group;
  }

  // ---- scroll --------------------------------------------------------------------------------

  private onWheel(pos: number, event: RawEvent): boolean {
    const dx = event.dx ?? 0;
    const dy = event.dy ?? 0;
    if (dx === 0 && dy === 0) {
      this.markUnowned(pos, 'zero-wheel');
      return false;
    }
    this.currentRun = null;
    const x = event.x ?? this.pointerX;
    const y = event.y ?? this.pointerY;
    this.pointerX = x;
    this.pointerY = y;
    const at = this.stamp(pos);
    const { constants } = this;
    let group = this.scroll;
    const firstTick = group === null ? undefined : this.prepared.events[group.ticks[0] ?? -1];
    const canJoin =
      group !== null &&
      firstTick !== undefined &&
      group.dirX === sign(dx) &&
      group.dirY === sign(dy) &&
      group.serial === this.interruptSerial &&
      at.s - group.lastTick.s <= constants.scrollMergeGapS &&
      this.logical(Math.hypot(x - (firstTick.x ?? 0), y - (firstTick.y ?? 0))) <=
        constants.scrollMergeRadiusPx;
    if (!canJoin || group === null) {
      group = createScrollDraft(this.drafts.length, at, sign(dx), sign(dy), this.interruptSerial);
      this.drafts.push(group);
      this.scroll = group;
    }
    const modifiers = this.consumeHolds(group);
    if (modifiers.length > 0 && group.modifiers.length === 0) {
      group.modifiers = modifiers;
      this.diagnose(group, {
        code: 'MODIFIER_CLICK_LOSSY',
        pos,
        detail: `modifiers ${modifiers.join('+')} held while scrolling are not exported`,
      });
    }
    this.own(pos, group);
    group.ticks.push(pos);
    group.lastTick = at;
    group.serial = this.interruptSerial;
    const endS = at.s + constants.scrollEndPadS;
    group.end = { s: endS, ms: null };
    return true;
  }

  // ---- keyboard ------------------------------------------------------------------------------

  private keyIdentity(event: RawEvent, key: NormalizedKey): string {
    if (event.keycode !== null) {
      return `code:${event.keycode}`;
    }
    if (key.modifier !== null) {
      // Left and right modifiers are separate holds.
      return `raw:${(event.key ?? event.keyRaw ?? key.name).toLowerCase()}`;
    }
    // Windows reports the release of Shift+a as "a" after Shift went up: compare case-blind.
    return `name:${key.name.toLowerCase()}`;
  }

  private activeHolds(): ModifierHold[] {
    return [...this.holds.values()];
  }

  // Marks every held modifier as used by `draft`; returns the chord modifiers held.
  private consumeHolds(draft: Draft): ModifierName[] {
    if (this.holds.size === 0) {
      return [];
    }
    const names: ModifierName[] = [];
    for (const hold of this.holds.values()) {
      hold.hasOtherInput = true;
      hold.owner ??= draft;
      names.push(hold.name);
    }
    return canonicalModifiers(names);
  }

  private onKeyDown(pos: number, event: RawEvent): boolean {
    const key = this.prepared.keys[pos];
    if (key === null || key === undefined) {
      return false;
    }
    const identity = this.keyIdentity(event, key);
    if (key.modifier !== null) {
      return this.onModifierDown(pos, key, identity);
    }
    const isRepeat =
      (event.flags & EVENT_FLAGS.repeat) !== 0 ||
      (this.keysDown.has(identity) && this.lastKeyDownIdentity === identity);
    this.lastKeyDownIdentity = identity;
    const holds = this.activeHolds();
    const chordModifiers = holds.filter((hold) => CHORD_MODIFIERS.has(hold.name));
    const isShiftHeld = holds.some((hold) => hold.name === 'shift');
    const isAltGr = holds.some((hold) => hold.isAltGr);
    const text = this.keyText(key, event);
    const isLock = LOCK_KEYS.has(key.name);
    const isText = text !== null && (chordModifiers.length === 0 || isAltGr);
    const isChord =
      !isText && !isLock && (chordModifiers.length > 0 || (isShiftHeld && text === null));
    const stroke: StrokeDraft = {
      pos,
      key: key.name,
      rawKey: event.key ?? event.keyRaw ?? '',
      text: isText ? (text ?? '') : '',
      isKnown: key.isKnown,
      isRepeat,
    };
    const owner = isChord ? this.chordKey(pos, stroke, identity) : this.runKey(pos, stroke);
    if (!key.isKnown) {
      this.diagnose(owner, {
        code: 'KEY_UNKNOWN',
        pos,
        detail: `key name ${JSON.stringify(stroke.rawKey)} is not in the key table`,
      });
    }
    this.keysDown.set(identity, { owner });
    return true;
  }

  private keyText(key: NormalizedKey, event: RawEvent): string | null {
    if (key.name === 'space') {
      return ' ';
    }
    if (event.char !== null && event.char !== '' && isPrintableText(event.char)) {
      return event.char;
    }
    // AgentNet import: a single-character name is the character the OS produced.
    return key.name.length === 1 || Array.from(key.name).length === 1 ? key.name : null;
  }

  private onModifierDown(pos: number, key: NormalizedKey, identity: string): boolean {
    const existing = this.holds.get(identity);
    if (existing !== undefined) {
      // Auto-repeat of a held modifier: owned with its hold, invisible otherwise.
      existing.events.push(pos);
      return false;
    }
    for (const hold of this.holds.values()) {
      hold.hasOtherInput = true;
    }
    this.holds.set(identity, {
      name: key.modifier ?? 'fn',
      isAltGr: key.isAltGr,
      events: [pos],
      start: this.stamp(pos),
      owner: null,
      hasOtherInput: false,
    });
    return true;
  }

  private runKey(pos: number, stroke: StrokeDraft): Draft {
    let run = this.currentRun;
    const at = this.stamp(pos);
    if (run === null) {
      run = createRunDraft(this.drafts.length, at);
      this.drafts.push(run);
      this.currentRun = run;
    }
    this.consumeHolds(run);
    this.own(pos, run);
    run.strokes.push(stroke);
    applyKeystroke(run, stroke);
    const endS = at.s + this.constants.typeEndPadS;
    run.end = { s: endS, ms: null };
    return run;
  }

  private chordKey(pos: number, stroke: StrokeDraft, identity: string): Draft {
    this.currentRun = null;
    const at = this.stamp(pos);
    const modifiers = canonicalModifiers(this.activeHolds().map((hold) => hold.name));
    const base = Array.from(stroke.key).length === 1 ? stroke.key.toLowerCase() : stroke.key;
    const keys = [...modifiers, base];
    const previous = this.keysDown.get(identity)?.owner;
    const endS = at.s + this.constants.hotkeyEndPadS;
    const end = { s: endS, ms: null };
    if (
      stroke.isRepeat &&
      previous?.type === 'hotkey' &&
      previous.identity === identity &&
      previous.keys.join('+') === keys.join('+')
    ) {
      previous.count += 1;
      previous.strokes.push(stroke);
      previous.end = end;
      this.own(pos, previous);
      return previous;
    }
    const hotkey = createHotkeyDraft(
      this.drafts.length,
      at,
      end,
      keys,
      modifiers,
      identity,
      stroke,
    );
    this.drafts.push(hotkey);
    this.consumeHolds(hotkey);
    this.own(pos, hotkey);
    return hotkey;
  }

  private onKeyUp(pos: number, event: RawEvent): boolean {
    const key = this.prepared.keys[pos];
    if (key === null || key === undefined) {
      return false;
    }
    const identity = this.keyIdentity(event, key);
    if (key.modifier !== null) {
      const hold = this.holds.get(identity);
      if (hold === undefined) {
        this.markUnowned(pos, 'orphan-release');
        return false;
      }
      this.holds.delete(identity);
      hold.events.push(pos);
      this.endHold(hold, this.stamp(pos));
      return true;
    }
    const down = this.keysDown.get(identity);
    if (down === undefined) {
      this.markUnowned(pos, 'orphan-release');
      return false;
    }
    this.keysDown.delete(identity);
    const owner = resolveDraft(down.owner);
    this.own(pos, owner);
    if (owner.type === 'hotkey' && owner.identity === identity) {
      owner.end = this.stamp(pos);
    }
    return true;
  }

  // A released (or end-of-stream) modifier: owned by its first user, else a tap.
  private endHold(hold: ModifierHold, end: Stamp): void {
    if (hold.owner !== null) {
      const owner = resolveDraft(hold.owner);
      for (const pos of hold.events) {
        this.own(pos, owner);
      }
      return;
    }
    // A modifier-only tap interrupts keyboard runs (§C.6).
    this.currentRun = null;
    const [downPos] = hold.events;
    if (!hold.hasOtherInput && (hold.name === 'win' || hold.name === 'alt')) {
      const events = this.prepared.events;
      const tap = createTapDraft(this.drafts.length, hold.start, end, hold.name, {
        pos: downPos ?? 0,
        key: hold.name,
        rawKey: events[downPos ?? 0]?.key ?? hold.name,
        text: '',
        isKnown: true,
        isRepeat: false,
      });
      this.drafts.push(tap);
      for (const pos of hold.events) {
        this.own(pos, tap);
      }
      return;
    }
    for (const pos of hold.events) {
      this.markUnowned(pos, 'lone-modifier-tap');
    }
  }

  private finish(): void {
    if (this.prepared.events.length === 0) {
      return;
    }
    const last = this.lastStamp();
    for (const press of [...this.pressStack]) {
      this.closePress(press, null, last, this.pointerX, this.pointerY);
    }
    for (const [identity, hold] of [...this.holds]) {
      this.holds.delete(identity);
      this.endHold(hold, last);
    }
  }
}
