// Hotkey parsing and the filter that removes the recorder's own chords from the stream.
import { describe, expect, it } from 'vitest';
import { MODIFIER_BITS } from '../../../src/shared/domain/raw-event';
import { AppError } from '../../../src/shared/errors';
import {
  DEFAULT_HOTKEYS,
  HotkeyFilter,
  parseHotkey,
  resolveHotkeys,
} from '../../../src/recorder/input/hotkeys';
import type { HotkeyHit } from '../../../src/recorder/input/hotkeys';
import type { InputEvent } from '../../../src/recorder/input/normalize-input-event';

const { shift, ctrl, alt, meta } = MODIFIER_BITS;

const KEYCODES: Record<string, number> = {
  ctrl: 0x1d,
  ctrlR: 0x0e1d,
  alt: 0x38,
  shift: 0x2a,
  win: 0x0e5b,
  r: 0x13,
  p: 0x19,
  s: 0x1f,
  a: 0x1e,
  f9: 0x43,
};
const BITS: Record<string, number> = { ctrl, ctrlR: ctrl, alt, shift, win: meta };

/** Builds a stream: `+ctrl` down, `-ctrl` up, `r` = down of r, `~` move, `click`. */
function stream(spec: string): InputEvent[] {
  let held = 0;
  let tMs = 1000;
  const events: InputEvent[] = [];
  const base = {
    x: null,
    y: null,
    button: null,
    keycode: null,
    key: null,
    char: null,
    keyRaw: null,
    dx: null,
    dy: null,
    flags: 0,
  };
  for (const token of spec.split(' ')) {
    tMs += 10;
    if (token === '~') {
      events.push({ ...base, tMs, kind: 'move', x: tMs, y: 1, modifiers: held });
      continue;
    }
    if (token === 'click') {
      events.push({ ...base, tMs, kind: 'down', x: 1, y: 1, button: 'left', modifiers: held });
      events.push({ ...base, tMs, kind: 'up', x: 1, y: 1, button: 'left', modifiers: held });
      continue;
    }
    const isUp = token.startsWith('-');
    const isExplicitDown = token.startsWith('+');
    const name = isUp || isExplicitDown ? token.slice(1) : token;
    const keycode = KEYCODES[name]!;
    const bit = BITS[name] ?? 0;
    const key = name === 'ctrlR' ? 'ctrl' : name;
    if (!isUp) {
      held |= bit;
      events.push({ ...base, tMs, kind: 'keydown', keycode, key, modifiers: held });
    }
    if (isUp || (!isExplicitDown && bit === 0)) {
      held &= ~bit;
      events.push({ ...base, tMs, kind: 'keyup', keycode, key, modifiers: held });
    }
  }
  return events;
}

function run(filter: HotkeyFilter, events: InputEvent[]): { kept: string[]; hits: HotkeyHit[] } {
  const kept: InputEvent[] = [];
  const hits: HotkeyHit[] = [];
  for (const event of events) {
    const output = filter.push(event);
    kept.push(...output.events);
    if (output.hotkey) {
      hits.push(output.hotkey);
    }
  }
  kept.push(...filter.flushAll());
  return {
    kept: kept.map((e) =>
      e.kind === 'keydown' ? `+${e.key}` : e.kind === 'keyup' ? `-${e.key}` : e.kind,
    ),
    hits,
  };
}

const defaults = (): HotkeyFilter => new HotkeyFilter(resolveHotkeys());

describe('parseHotkey', () => {
  it.each([
    ['ctrl+alt+shift+r', ctrl | alt | shift, 'r', 'ctrl+alt+shift+r'],
    ['Shift+Control+Alt+R', ctrl | alt | shift, 'r', 'ctrl+alt+shift+r'],
    ['super+F9', meta, 'f9', 'meta+f9'],
    ['cmd+option+Escape', meta | alt, 'esc', 'alt+meta+esc'],
    ['f9', 0, 'f9', 'f9'],
    ['ctrl+pgup', ctrl, 'pageup', 'ctrl+pageup'],
    ['ctrl+=', ctrl, '=', 'ctrl+='],
    ['ctrl+space', ctrl, 'space', 'ctrl+space'],
  ])('%s', (text, modifiers, key, canonical) => {
    expect(parseHotkey(text)).toEqual({ modifiers, key, text: canonical });
  });

  it.each([
    ['ctrl+alt', /no key besides modifiers/],
    ['ctrl+a+b', /2 keys/],
    ['ctrl+ctrl+a', /appears twice/],
    ['ctrl+hyper', /unknown key 'hyper'/],
    ['ctrl+', /empty part/],
    ['ctrl++', /empty part/],
    ['', /empty part/],
  ])('rejects %j', (text, message) => {
    let error: unknown = null;
    try {
      parseHotkey(text);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(AppError);
    expect((error as AppError).code).toBe('HOTKEY_INVALID');
    expect((error as AppError).message).toMatch(message);
  });
});

describe('resolveHotkeys', () => {
  it('uses the defaults, which avoid Ctrl+Alt+T', () => {
    const hotkeys = resolveHotkeys();
    expect(hotkeys.map((h) => [h.action, h.chord.text])).toEqual([
      ['start', DEFAULT_HOTKEYS.start],
      ['stop', 'ctrl+alt+shift+r'],
      ['pause', 'ctrl+alt+shift+p'],
    ]);
    expect(hotkeys.some((h) => h.chord.text === 'ctrl+alt+t')).toBe(false);
  });

  it('applies overrides and disables with null', () => {
    const hotkeys = resolveHotkeys({ stop: 'f9', start: null });
    expect(hotkeys.map((h) => [h.action, h.chord.text])).toEqual([
      ['stop', 'f9'],
      ['pause', 'ctrl+alt+shift+p'],
    ]);
  });

  it('rejects two actions on one chord', () => {
    expect(() => resolveHotkeys({ pause: 'shift+alt+ctrl+r' })).toThrow(/already the 'stop'/);
  });
});

describe('HotkeyFilter', () => {
  it('removes the whole stop chord and reports it at the chord key', () => {
    const events = stream('a +ctrl +alt +shift r -shift -alt -ctrl a');
    const { kept, hits } = run(defaults(), events);
    expect(kept).toEqual(['+a', '-a', '+a', '-a']);
    expect(hits).toEqual([{ action: 'stop', tMs: events.find((e) => e.key === 'r')!.tMs }]);
  });

  it('keeps moves made while the chord is held, in order', () => {
    const { kept, hits } = run(defaults(), stream('+ctrl ~ +alt ~ +shift p ~ -ctrl -alt -shift'));
    expect(kept).toEqual(['move', 'move', 'move']);
    expect(hits.map((h) => h.action)).toEqual(['pause']);
  });

  it('removes auto-repeats of the chord key and of its modifiers', () => {
    const events = stream('+ctrl +alt +shift +r');
    const repeat = { ...events.at(-1)!, tMs: 2000 };
    const modifierRepeat = { ...events[0]!, tMs: 2001 };
    const tail = stream('-r -shift -alt -ctrl');
    const { kept, hits } = run(defaults(), [...events, repeat, modifierRepeat, ...tail]);
    expect(kept).toEqual([]);
    expect(hits).toHaveLength(1);
  });

  it('reports a second chord key in the same modifier hold', () => {
    const { kept, hits } = run(defaults(), stream('+ctrl +alt +shift p p -shift -alt -ctrl'));
    expect(kept).toEqual([]);
    expect(hits.map((h) => h.action)).toEqual(['pause', 'pause']);
  });

  it('keeps chords that are not hotkeys, including their modifiers', () => {
    expect(run(defaults(), stream('+ctrl a -ctrl')).kept).toEqual(['+ctrl', '+a', '-a', '-ctrl']);
    // a superset of a hotkey's modifiers is a different chord
    expect(run(defaults(), stream('+win +ctrl +alt +shift r -shift -alt -ctrl -win')).hits).toEqual(
      [],
    );
  });

  it('keeps modifier taps, modifier clicks and abandoned prefixes', () => {
    expect(run(defaults(), stream('+ctrl -ctrl')).kept).toEqual(['+ctrl', '-ctrl']);
    expect(run(defaults(), stream('+ctrl click -ctrl')).kept).toEqual([
      '+ctrl',
      'down',
      'up',
      '-ctrl',
    ]);
    expect(run(defaults(), stream('+ctrl +alt -alt -ctrl')).kept).toEqual([
      '+ctrl',
      '+alt',
      '-alt',
      '-ctrl',
    ]);
  });

  it('matches either side of a modifier', () => {
    const { kept, hits } = run(defaults(), stream('+ctrlR +alt +shift r -shift -alt -ctrlR'));
    expect(kept).toEqual([]);
    expect(hits).toHaveLength(1);
  });

  it('keeps releases of modifiers that were delivered before the chord', () => {
    // shift held long enough to be released as user input, then the chord completes
    const filter = new HotkeyFilter(resolveHotkeys(), { holdLimitMs: 50 });
    const events = stream('+shift ~ +ctrl +alt r -ctrl -alt -shift');
    const kept: InputEvent[] = [];
    for (const event of events.slice(0, 2)) {
      kept.push(...filter.push(event).events);
    }
    kept.push(...filter.flushDue(events[1]!.tMs + 60));
    expect(kept.map((e) => e.kind)).toEqual(['keydown', 'move']);
    const rest = run(filter, events.slice(2));
    expect(rest.hits.map((h) => h.action)).toEqual(['stop']);
    expect(rest.kept).toEqual(['-shift']);
  });

  it('holds nothing once the hold limit has passed', () => {
    const filter = new HotkeyFilter(resolveHotkeys(), { holdLimitMs: 100 });
    const [down] = stream('+ctrl');
    expect(filter.push(down!).events).toEqual([]);
    expect(filter.isHolding).toBe(true);
    expect(filter.flushDue(down!.tMs + 99)).toEqual([]);
    expect(filter.flushDue(down!.tMs + 100)).toEqual([down]);
    expect(filter.isHolding).toBe(false);
  });

  it('filters a single-key hotkey with its release', () => {
    const filter = new HotkeyFilter(resolveHotkeys({ stop: 'f9' }));
    const { kept, hits } = run(filter, stream('a f9 a'));
    expect(kept).toEqual(['+a', '-a', '+a', '-a']);
    expect(hits.map((h) => h.action)).toEqual(['stop']);
  });
});
