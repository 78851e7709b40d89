// InputPipeline without any process: uiohook events in, ordered batches and hotkeys out. The
// hotkey chord is removed and comes after the events before it, typing is masked while a secure
// field has focus, held chords are released on the cadence, and a gap forgets held keys.
import { describe, expect, it } from 'vitest';
import type { HookInputEvent } from '../../../src/recorder/input/hook-protocol';
import { InputPipeline } from '../../../src/recorder/input/input-pipeline';
import type { InputPipelineOutput } from '../../../src/recorder/input/input-pipeline';
import { MASKED_KEY } from '../../../src/recorder/input/key-masking';
import { US_KEYBOARD_LAYOUT } from '../../../src/recorder/input/keyboard-layout';
import { EVENT_FLAGS } from '../../../src/shared/domain/raw-event';

const VC = { ctrl: 0x1d, alt: 0x38, shift: 0x2a, r: 0x13, a: 0x1e } as const;
const NO_MODS = { altKey: false, ctrlKey: false, metaKey: false, shiftKey: false };

const keyDown = (keycode: number, mods: Partial<typeof NO_MODS> = {}): HookInputEvent => ({
  type: 4,
  time: 0,
  ...NO_MODS,
  ...mods,
  keycode,
});
const keyUp = (keycode: number, mods: Partial<typeof NO_MODS> = {}): HookInputEvent => ({
  type: 5,
  time: 0,
  ...NO_MODS,
  ...mods,
  keycode,
});
const click = (x: number): HookInputEvent => ({
  type: 7,
  time: 0,
  ...NO_MODS,
  x,
  y: 1,
  button: 1,
  clicks: 1,
});

function pipeline(maxBatchSize?: number): InputPipeline {
  return new InputPipeline({
    platform: 'linux',
    layout: US_KEYBOARD_LAYOUT,
    serverTimeMaxLagMs: 0, // the callback stamp is the event time
    maxBatchSize,
  });
}

/** Outputs as short strings: `events[a b]` and `hotkey:stop`. */
function describeOutputs(outputs: InputPipelineOutput[]): string[] {
  return outputs.map((output) =>
    output.kind === 'hotkey'
      ? `hotkey:${output.action}@${output.tMs}`
      : `events[${output.events.map((e) => `${e.kind}:${e.char ?? e.key ?? e.x}`).join(' ')}]`,
  );
}

describe('InputPipeline', () => {
  it('normalises and batches: nothing is handed on before a flush or a full batch', () => {
    const p = pipeline(3);
    expect(p.push(1, click(10))).toEqual([]);
    expect(p.push(2, keyDown(VC.a))).toEqual([]);
    expect(describeOutputs(p.push(3, keyUp(VC.a)))).toEqual(['events[down:10 keydown:a keyup:a]']);
    expect(p.push(4, click(11))).toEqual([]);
    const flushed = p.flush();
    expect(describeOutputs(flushed)).toEqual(['events[down:11]']);
    expect(flushed[0]).toMatchObject({ events: [{ tMs: 4, button: 'left', y: 1 }] });
    expect(p.flush()).toEqual([]);
  });

  it('removes the stop chord and reports it after the events typed before it', () => {
    const p = pipeline();
    p.push(1, keyDown(VC.a));
    p.push(2, keyUp(VC.a));
    const mods = { ctrlKey: true, altKey: true, shiftKey: true };
    const out = [
      ...p.push(10, keyDown(VC.ctrl)),
      ...p.push(11, keyDown(VC.alt, { ctrlKey: true })),
      ...p.push(12, keyDown(VC.shift, { ctrlKey: true, altKey: true })),
      ...p.push(13, keyDown(VC.r, mods)),
    ];
    expect(describeOutputs(out)).toEqual(['events[keydown:a keyup:a]', 'hotkey:stop@13']);
    // the chord's releases are swallowed too
    for (const [t, code] of [
      [14, VC.r],
      [15, VC.shift],
      [16, VC.alt],
      [17, VC.ctrl],
    ] as const) {
      p.push(t, keyUp(code, mods));
    }
    expect(p.flushAll()).toEqual([]);
  });

  it('releases a modifier held for a chord once its hold limit passes', () => {
    const p = new InputPipeline({
      platform: 'linux',
      serverTimeMaxLagMs: 0,
      hotkeyHoldLimitMs: 100,
    });
    expect(p.push(1000, keyDown(VC.ctrl))).toEqual([]);
    expect(p.flushDue(1050)).toEqual([]);
    expect(describeOutputs(p.flushDue(1100))).toEqual(['events[keydown:ctrl]']);
  });

  it('masks text keys while a secure field has focus, and only then', () => {
    const p = pipeline();
    p.setMask(true, 5);
    p.push(10, keyDown(VC.a));
    p.push(11, keyUp(VC.a));
    p.setMask(false, 20);
    p.push(30, keyDown(VC.a));
    const [batch] = p.flush();
    expect(batch?.kind === 'events' && batch.events.map((e) => [e.key, e.char])).toEqual([
      [MASKED_KEY, null],
      [MASKED_KEY, null],
      ['a', 'a'],
    ]);
  });

  it('after a gap hands on what was held and forgets held keys (no auto-repeat flag)', () => {
    const p = pipeline();
    p.push(1, keyDown(VC.a));
    expect(describeOutputs(p.resetAfterGap())).toEqual(['events[keydown:a]']);
    // the same key down again is a new press, not an auto-repeat of the one before the gap
    p.push(2, keyDown(VC.a));
    const [batch] = p.flush();
    expect(batch?.kind === 'events' && batch.events[0]!.flags & EVENT_FLAGS.repeat).toBe(0);
    // times never go back across the gap
    p.push(0, click(5));
    const [later] = p.flush();
    expect(later?.kind === 'events' && later.events[0]!.tMs).toBe(2);
  });

  it('rejects a bad hotkey configuration when constructed', () => {
    expect(() => new InputPipeline({ hotkeys: { stop: 'ctrl+nosuchkey' } })).toThrow();
  });
});
