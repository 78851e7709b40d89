// Deterministic synthetic raw-event streams (moves, clicks, drags, typing, scrolls, hotkeys) for
// the reducer's invariant tests and benchmark.
import type { MouseButton, RawEvent, RawEventKind } from '../../../src/shared/domain/raw-event';

/** mulberry32: a small seeded PRNG, returns floats in [0, 1). */
function prng(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const LETTERS = 'etaoinshrdlucmfwypvbgkjqxz';

/** Exactly `count` raw events of a plausible desktop session, the same for the same seed. */
export function syntheticRawEvents(count: number, seed = 1): RawEvent[] {
  const random = prng(seed);
  const between = (min: number, max: number): number =>
    min + Math.floor(random() * (max - min + 1));
  const events: RawEvent[] = [];
  // The clock advances in whole microseconds so every tMs is a short decimal (like perf_counter).
  let nowUs = 30_000_000_000;
  let x = 683;
  let y = 384;
  const push = (kind: RawEventKind, fields: Partial<RawEvent> = {}): void => {
    if (events.length < count) {
      events.push({
        idx: events.length,
        tMs: nowUs / 1000,
        kind,
        x: null,
        y: null,
        button: null,
        keycode: null,
        key: null,
        char: null,
        keyRaw: null,
        modifiers: 0,
        dx: null,
        dy: null,
        flags: 0,
        ...fields,
      });
    }
  };
  const wait = (minMs: number, maxMs: number): void => {
    nowUs += between(minMs * 1000, maxMs * 1000);
  };
  const moves = (n: number, step: number): void => {
    for (let i = 0; i < n; i += 1) {
      wait(7, 9);
      x = Math.max(0, Math.min(1919, x + between(-step, step)));
      y = Math.max(0, Math.min(1079, y + between(-step, step)));
      push('move', { x, y });
    }
  };
  const button = (kind: 'down' | 'up', which: MouseButton = 'left'): void =>
    push(kind, { x, y, button: which });
  const key = (kind: 'keydown' | 'keyup', name: string): void =>
    push(kind, { key: name, keyRaw: name, char: name.length === 1 ? name : null });
  const tap = (name: string): void => {
    key('keydown', name);
    wait(40, 90);
    key('keyup', name);
  };
  const click = (which: MouseButton = 'left'): void => {
    button('down', which);
    wait(50, 140);
    button('up', which);
  };

  while (events.length < count) {
    moves(between(5, 60), 12);
    const pick = random();
    if (pick < 0.4) {
      click();
    } else if (pick < 0.48) {
      click();
      wait(80, 200);
      click();
    } else if (pick < 0.55) {
      button('down');
      moves(between(20, 80), 6);
      button('up');
    } else if (pick < 0.75) {
      const length = between(3, 12);
      for (let i = 0; i < length; i += 1) {
        const letter = LETTERS[between(0, LETTERS.length - 1)] ?? 'e';
        const roll = random();
        if (roll < 0.08) {
          key('keydown', 'shift');
          tap(letter.toUpperCase());
          key('keyup', 'shift');
        } else if (roll < 0.14) {
          tap('backspace');
        } else if (roll < 0.22) {
          tap('space');
        } else {
          tap(letter);
        }
        wait(60, 220);
      }
    } else if (pick < 0.9) {
      const ticks = between(2, 9);
      const dy = random() < 0.7 ? -1 : 1;
      for (let i = 0; i < ticks; i += 1) {
        push('wheel', { x, y, dx: 0, dy });
        wait(20, 120);
        if (random() < 0.3) {
          moves(1, 2);
        }
      }
    } else if (pick < 0.96) {
      key('keydown', 'ctrl_l');
      wait(50, 120);
      tap(['c', 'v', 'z', 'a'][between(0, 3)] ?? 'c');
      wait(30, 90);
      key('keyup', 'ctrl_l');
    } else {
      click('right');
    }
    wait(150, 1500);
  }
  return events;
}
