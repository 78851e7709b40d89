// Which press may be taken for the app's own gesture of a pause or stop (app-input.ts
// appPressCheck): only one aimed at the app's windows, by process, declared id or the Record
// page's title; a key by the focus it was pressed in, a click by the window under the pointer.
import { describe, expect, it } from 'vitest';
import type { GesturePress } from '../../../src/recorder/session';
import type { ActiveWindowEntry } from '../../../src/recorder/windows/active-window';
import type { PointedWindow } from '../../../src/recorder/privacy/x11-pointer-window';
import {
  APP_RECORDING_TITLE,
  appPressCheck,
  isAppWindow,
} from '../../../src/services/recording/app-input';

const APP = { windowIds: [0x3a00007], pids: [4242] };
const bounds = { x: 100, y: 100, width: 400, height: 300 };
const entry = (extra: Partial<ActiveWindowEntry>): ActiveWindowEntry => ({
  tMs: 0,
  change: 'activated',
  windowId: '0x1200003',
  title: 'Text Editor',
  app: 'Editor',
  appInstance: 'editor',
  pid: 77,
  bounds,
  ...extra,
});
const pointed = (extra: Partial<PointedWindow>): PointedWindow => ({
  windowId: '0x1200003',
  title: 'Text Editor',
  app: 'Editor',
  appInstance: 'editor',
  pid: 77,
  bounds,
  ...extra,
});
const press = (extra: Partial<GesturePress>): GesturePress => ({
  kind: 'button',
  tMs: 1000,
  x: 200,
  y: 200,
  focusedAtPress: null,
  focused: null,
  ...extra,
});

describe('the app’s own press', () => {
  it('knows the app’s windows by id, by process and by the Record page’s title', () => {
    expect(isAppWindow({ windowId: '0x3a00007', pid: null, title: null }, APP)).toBe(true);
    expect(isAppWindow({ windowId: '0x1', pid: 4242, title: null }, APP)).toBe(true);
    expect(
      isAppWindow({ windowId: '0x1', pid: 9, title: `${APP_RECORDING_TITLE} - Chromium` }, APP),
    ).toBe(true);
    expect(isAppWindow({ windowId: '0x1', pid: 9, title: 'Recording notes' }, APP)).toBe(false);
    expect(isAppWindow({ windowId: null, pid: null, title: null }, APP)).toBe(false);
  });

  it('takes a key only when the app’s window had the focus as it was pressed', async () => {
    const check = appPressCheck({ pointerWindow: null, appWindows: () => APP });
    const own = entry({ pid: 4242 });
    const other = entry({});
    expect(await check(press({ kind: 'key', focusedAtPress: own, focused: own }))).toBe(true);
    // typed into another window; the app's window got the focus afterwards
    expect(await check(press({ kind: 'key', focusedAtPress: other, focused: own }))).toBe(false);
    expect(await check(press({ kind: 'key', focusedAtPress: null, focused: own }))).toBe(false);
  });

  it('takes a click only inside the app’s window under the pointer (else the focused one)', async () => {
    const onApp = appPressCheck({
      pointerWindow: () => Promise.resolve(pointed({ pid: 4242 })),
      appWindows: () => APP,
    });
    expect(await onApp(press({}))).toBe(true);
    // the pointer is over the app's window now, but the click went down outside it
    expect(await onApp(press({ x: 50, y: 50 }))).toBe(false);
    const onOther = appPressCheck({
      pointerWindow: () => Promise.resolve(pointed({})),
      appWindows: () => APP,
    });
    expect(await onOther(press({ focused: entry({ pid: 4242 }) }))).toBe(false);
    // no pointer lookup (macOS, Windows) or nothing under it: the window the click focused
    const noLookup = appPressCheck({ pointerWindow: null, appWindows: () => APP });
    expect(await noLookup(press({ focused: entry({ pid: 4242 }) }))).toBe(true);
    expect(await noLookup(press({ focused: entry({}) }))).toBe(false);
    expect(await noLookup(press({ focused: null }))).toBe(false);
  });
});
