// Which press brought a window to the front (issue 26, item 17): the pure decision the library
// sink uses to stamp an activation with the click that made it.
import { describe, expect, it } from 'vitest';
import {
  activatingPress,
  CLICK_ACTIVATION_MAX_MS,
} from '../../../src/recorder/windows/click-activation';

const bounds = { x: 650, y: 470, width: 120, height: 70 };
const entry = {
  tMs: 1000,
  change: 'activated' as const,
  windowId: '0x600003',
  bounds,
  transientFor: null,
};
const previous = { tMs: 200, windowId: '0x400003' };
const onWindow = { tMs: 990, x: 690, y: 485 };

describe('activatingPress', () => {
  it('item 45: takes the latest press on the window between the entry before and the activation', () => {
    const earlier = { tMs: 700, x: 700, y: 500 };
    expect(activatingPress(entry, previous, [earlier, onWindow])).toEqual(onWindow);
    // its title bar (above the client area) counts too
    const titleBar = { tMs: 995, x: 700, y: 455 };
    expect(activatingPress(entry, previous, [titleBar])).toEqual(titleBar);
  });

  it('item 45: takes no press elsewhere, too early, before the entry before, or after', () => {
    expect(activatingPress(entry, previous, [{ tMs: 990, x: 300, y: 300 }])).toBeNull();
    const tooEarly = entry.tMs - CLICK_ACTIVATION_MAX_MS - 1;
    expect(activatingPress(entry, previous, [{ ...onWindow, tMs: tooEarly }])).toBeNull();
    expect(activatingPress(entry, { ...previous, tMs: 995 }, [onWindow])).toBeNull();
    expect(activatingPress(entry, previous, [{ ...onWindow, tMs: 1001 }])).toBeNull();
  });

  it('item 45: never moves a dialog (transient), a title change, the first entry or the same window', () => {
    expect(
      activatingPress({ ...entry, transientFor: '0x400003' }, previous, [onWindow]),
    ).toBeNull();
    expect(activatingPress({ ...entry, change: 'title' }, previous, [onWindow])).toBeNull();
    expect(activatingPress(entry, null, [onWindow])).toBeNull();
    expect(
      activatingPress(entry, { ...previous, windowId: entry.windowId }, [onWindow]),
    ).toBeNull();
    expect(activatingPress({ ...entry, bounds: null }, previous, [onWindow])).toBeNull();
  });

  it("item 45: a press on the window in front is that window's, even when the one behind comes up (a dialog closed by its own button)", () => {
    // the dialog in front covered the point; its button closed it and the form behind, under the
    // same point, was activated: the click stays the dialog's (tests/faults/recorder.test.ts item 6)
    const dialog = { ...previous, bounds: { x: 660, y: 460, width: 80, height: 60 } };
    expect(activatingPress(entry, dialog, [onWindow])).toBeNull();
    // a front window elsewhere on the screen does not hide the press
    const elsewhere = { ...previous, bounds: { x: 0, y: 0, width: 300, height: 200 } };
    expect(activatingPress(entry, elsewhere, [onWindow])).toEqual(onWindow);
  });
});
