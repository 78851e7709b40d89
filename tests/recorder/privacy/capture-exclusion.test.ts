// The session's exclusion state: which events are kept (keys by the focused window, buttons and
// wheel by the window under the pointer, moves always), what the window timeline stores and the
// `excluded` marks it opens and ends; the X11 pointer parsers; and how long a batch waits for the
// window timeline before it is judged (only keys and buttons, only until they are
// EXCLUSION_TIMELINE_LAG_MS old, so a batch the hook child held back is judged without a timer).
import { describe, expect, it } from 'vitest';
import { CaptureExclusion } from '../../../src/recorder/privacy/capture-exclusion';
import { compileExclusions, exclusionRules } from '../../../src/recorder/privacy/exclusion';
import {
  parseMouseLocationWindow,
  parseTreeClient,
  type PointedWindow,
} from '../../../src/recorder/privacy/x11-pointer-window';
import type { InputEvent } from '../../../src/recorder/input/normalize-input-event';
import type { ActiveWindowEntry } from '../../../src/recorder/windows/active-window';
import type {
  StackClient,
  WindowStackTracker,
} from '../../../src/recorder/windows/x11-window-stack';
import { EXCLUSION_TIMELINE_LAG_MS, exclusionWaitMs } from '../../../src/recorder/session';

const matcher = compileExclusions(
  exclusionRules({ excludeApps: ['Vault'], excludeTitles: ['^Secret'] }),
);

function entry(tMs: number, windowId: string, title: string, app: string): ActiveWindowEntry {
  return {
    tMs,
    change: 'activated',
    windowId,
    title,
    app,
    appInstance: app.toLowerCase(),
    pid: 42,
    bounds: { x: 10, y: 20, width: 300, height: 200 },
  };
}

function ev(tMs: number, kind: InputEvent['kind'], extra: Partial<InputEvent> = {}): InputEvent {
  return {
    tMs,
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
    ...extra,
  };
}

function setup(pointed: () => PointedWindow | null = () => null) {
  const marks: { op: string; tMs: number; endMs?: number; data?: unknown }[] = [];
  let now = 0;
  const x = new CaptureExclusion(
    { matcher, pointerWindow: () => Promise.resolve(pointed()) },
    {
      open: (m) => marks.push({ op: 'open', tMs: m.tMs, data: m.data }),
      end: (_kind, tMs, endMs) => marks.push({ op: 'end', tMs, endMs }),
    },
    () => (now += 1000), // every lookup is fresh
  );
  return { x, marks };
}

describe('CaptureExclusion', () => {
  it('stores "excluded" for an excluded window and marks the interval with rule and bounds', () => {
    const { x, marks } = setup();
    expect(x.window(entry(100, '0x1', 'Editor', 'gedit')).title).toBe('Editor');
    const stored = x.window(entry(200, '0x2', 'Passwords', 'Vault'));
    expect(stored).toMatchObject({
      title: 'excluded',
      app: null,
      appInstance: null,
      pid: null,
      windowId: '0x2',
      bounds: { x: 10, y: 20, width: 300, height: 200 },
    });
    expect(x.isFocusedExcluded).toBe(true);
    // a title change of the same excluded window keeps the interval
    expect(x.window({ ...entry(250, '0x2', 'Passwords 2', 'Vault'), change: 'title' }).title).toBe(
      'excluded',
    );
    // no window active in passing: the interval goes on
    const none = { ...entry(300, '0x0', '', ''), windowId: null, title: null, app: null };
    expect(x.window(none)).toEqual(none);
    expect(x.isFocusedExcluded).toBe(true);
    x.window(entry(400, '0x1', 'Editor', 'gedit'));
    expect(x.isFocusedExcluded).toBe(false);
    x.window(entry(500, '0x3', 'Secret plans', 'gedit'));
    x.close(900);
    expect(marks).toEqual([
      {
        op: 'open',
        tMs: 200,
        data: { rule: 'app:Vault', bounds: { x: 10, y: 20, width: 300, height: 200 } },
      },
      { op: 'end', tMs: 200, endMs: 400 },
      {
        op: 'open',
        tMs: 500,
        data: { rule: 'title:/^Secret/', bounds: { x: 10, y: 20, width: 300, height: 200 } },
      },
      { op: 'end', tMs: 500, endMs: 900 },
    ]);
    x.close(1000); // nothing open any more
    expect(marks).toHaveLength(4);
  });

  it('judges by the process name too', () => {
    const m = compileExclusions(exclusionRules({ excludeApps: ['vaultd'] }));
    const x = new CaptureExclusion(
      { matcher: m, processName: (pid) => (pid === 42 ? 'vaultd' : null) },
      { open: () => undefined, end: () => undefined },
      () => 0,
    );
    expect(x.window(entry(1, '0x9', 'Main', 'Generic')).title).toBe('excluded');
  });

  it('drops keys typed while an excluded window had focus, keeps moves and order', async () => {
    const { x } = setup();
    x.window(entry(100, '0x1', 'Editor', 'gedit'));
    x.window(entry(200, '0x2', 'Secret', 'gedit'));
    x.window(entry(300, '0x1', 'Editor', 'gedit'));
    const batch = [
      ev(150, 'keydown', { key: 'a' }),
      ev(210, 'keydown', { key: 'p' }),
      ev(220, 'move', { x: 5, y: 5 }),
      ev(230, 'keyup', { key: 'p' }),
      ev(240, 'other'),
      ev(310, 'keydown', { key: 'b' }),
    ];
    const kept = await x.filter(batch);
    expect(kept.map((e) => `${e.tMs}${e.kind}`)).toEqual(['150keydown', '220move', '310keydown']);
  });

  it('judges buttons and wheel by the window under the pointer, releases by their press', async () => {
    let under: PointedWindow | null = {
      windowId: '0x2',
      title: 'Passwords',
      app: 'Vault',
      appInstance: 'vault',
      bounds: { x: 0, y: 0, width: 10, height: 10 },
      pid: null,
    };
    const { x } = setup(() => under);
    x.window(entry(100, '0x1', 'Editor', 'gedit')); // focus on a kept window
    const first = await x.filter([
      ev(110, 'down', { button: 'left', x: 1, y: 1 }),
      ev(120, 'wheel', { x: 1, y: 1, dy: 1 }),
    ]);
    expect(first).toEqual([]);
    under = { ...under, windowId: '0x1', title: 'Editor', app: 'gedit' };
    // the release of the excluded press stays out even though the pointer moved on
    const second = await x.filter([
      ev(130, 'up', { button: 'left', x: 50, y: 50 }),
      ev(140, 'down', { button: 'left', x: 50, y: 50 }),
      ev(150, 'up', { button: 'left', x: 50, y: 50 }),
    ]);
    expect(second.map((e) => `${e.tMs}${e.kind}`)).toEqual(['140down', '150up']);
    // no client under the pointer (a popup, the desktop): the focused window decides
    under = null;
    x.window(entry(200, '0x2', 'Passwords', 'Vault'));
    expect(await x.filter([ev(210, 'down', { button: 'left', x: 1, y: 1 })])).toEqual([]);
  });

  it('falls back to the focused window when the pointer lookup fails', async () => {
    const warnings: string[] = [];
    const x = new CaptureExclusion(
      { matcher, pointerWindow: () => Promise.reject(new Error('xdotool: not found')) },
      { open: () => undefined, end: () => undefined },
      () => 0,
      (m) => warnings.push(m),
    );
    x.window(entry(100, '0x2', 'Passwords', 'Vault'));
    expect(await x.filter([ev(110, 'down', { button: 'left', x: 1, y: 1 })])).toEqual([]);
    x.window(entry(200, '0x1', 'Editor', 'gedit'));
    expect(await x.filter([ev(210, 'down', { button: 'left', x: 1, y: 1 })])).toHaveLength(1);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain('install xdotool');
  });
});

describe('X11 pointer parsers', () => {
  it('reads the window id of xdotool getmouselocation --shell', () => {
    expect(parseMouseLocationWindow('X=311\nY=216\nSCREEN=0\nWINDOW=2097761\n')).toBe('0x200261');
    expect(parseMouseLocationWindow('X=1\nY=1\n')).toBeNull();
  });

  it('finds the client in xwininfo -tree output of a frame', () => {
    const text = [
      'xwininfo: Window id: 0x200261 (has no name)',
      '  Root window id: 0x50d (the root window) (has no name)',
      '  4 children:',
      '     0x200273 (has no name): ()  370x3+25+0  +126+101',
      '     0x400003 "CUA \\"Test\\" Form": ("gtk-form.py" "Gtk-form.py")  420x460+1+20  +101+120',
      '        1 child:',
    ].join('\n');
    expect(parseTreeClient(text)).toEqual({
      windowId: '0x400003',
      title: 'CUA \\"Test\\" Form',
      app: 'Gtk-form.py',
      appInstance: 'gtk-form.py',
      bounds: { x: 101, y: 120, width: 420, height: 460 },
    });
    expect(
      parseTreeClient('     0x600001 (has no name): ("xmessage" "Xmessage")  200x80+0+0  +5+6'),
    ).toMatchObject({ windowId: '0x600001', title: null, app: 'Xmessage' });
    expect(parseTreeClient('     0x200273 (has no name): ()  370x3+25+0  +126+101')).toBeNull();
  });
});

describe('exclusionWaitMs', () => {
  const now = 10_000;

  it('does not wait for moves alone', () => {
    expect(exclusionWaitMs([ev(now - 50, 'move'), ev(now, 'move')], now)).toBeNull();
  });

  it('waits the whole lag for a key pressed just now', () => {
    expect(exclusionWaitMs([ev(now, 'keydown')], now)).toBe(EXCLUSION_TIMELINE_LAG_MS);
  });

  it('waits only for what is left of the lag', () => {
    expect(exclusionWaitMs([ev(now - 5, 'down')], now)).toBe(EXCLUSION_TIMELINE_LAG_MS - 5);
  });

  it('judges a held-back batch whose release is older than the lag at once', () => {
    const batch = [ev(now - 90, 'move'), ev(now - 60, 'keyup'), ev(now - 10, 'move')];
    expect(exclusionWaitMs(batch, now)).toBe(0);
  });

  it('goes by the newest key or button of the batch', () => {
    const batch = [ev(now - 80, 'keyup'), ev(now - 2, 'wheel'), ev(now, 'move')];
    expect(exclusionWaitMs(batch, now)).toBe(EXCLUSION_TIMELINE_LAG_MS - 2);
  });

  it('never waits longer than the lag, whatever the stamps say', () => {
    expect(exclusionWaitMs([ev(now + 5_000, 'keydown')], now)).toBe(EXCLUSION_TIMELINE_LAG_MS);
  });
});

describe('item 37: the app own windows (the HUD) are excluded by window id', () => {
  it("item 37: the HUD's focus, its clicks and its place on the screen are left out, with no rule naming it", async () => {
    const hud = 0x4000001;
    const marks: { op: string; tMs: number; data?: unknown }[] = [];
    let pointed: PointedWindow | null = null;
    let now = 0;
    const selected: string[] = [];
    const x = new CaptureExclusion(
      {
        // no user rule matches the HUD ('cua-annotator recording', class 'cua-annotator')
        matcher: compileExclusions(exclusionRules({ settings: { useDefaultExclusions: false } })),
        pointerWindow: () => Promise.resolve(pointed),
        isOwnWindow: (windowId) => Number.parseInt(windowId, 16) === hud,
        windowStack: (select): WindowStackTracker => {
          const frame = { x: 0, y: 0, width: 340, height: 76 };
          const clients: StackClient[] = [
            {
              windowId: '0x4000001',
              topLevelId: '0x4000001',
              title: 'cua-annotator recording',
              app: 'cua-annotator',
              appInstance: 'cua-annotator',
              frame,
            },
            {
              windowId: '0x2c00007',
              topLevelId: '0x2c00007',
              title: 'Form',
              app: 'Gtk-form.py',
              appInstance: 'gtk-form.py',
              frame,
            },
          ];
          selected.push(...clients.filter((c) => select({ ...c, pid: 7 })).map((c) => c.windowId));
          return {
            start: () => undefined,
            refresh: () => undefined,
            stop: () => Promise.resolve(),
          };
        },
      },
      {
        open: (m) => marks.push({ op: 'open', tMs: m.tMs, data: m.data }),
        end: (_kind, tMs) => marks.push({ op: 'end', tMs }),
      },
      () => (now += 1000),
    );
    // its focus: not stored (title 'excluded'), keys typed meanwhile left out
    expect(x.window(entry(100, '0x2c00007', 'Form', 'Gtk-form.py')).title).toBe('Form');
    expect(
      x.window(entry(200, '0x04000001', 'cua-annotator recording', 'cua-annotator')),
    ).toMatchObject({
      title: 'excluded',
      app: null,
    });
    expect(marks[0]).toMatchObject({ op: 'open', tMs: 200 });
    const keys = await x.filter([ev(250, 'keydown', { keycode: 30, key: 'a' })]);
    expect(keys).toEqual([]);
    // a click on it while another window has focus: left out
    x.window(entry(300, '0x2c00007', 'Form', 'Gtk-form.py'));
    const bounds = { x: 0, y: 0, width: 340, height: 76 };
    pointed = {
      windowId: '0x4000001',
      title: 'cua-annotator recording',
      app: 'cua-annotator',
      pid: 7,
      bounds,
    };
    expect(await x.filter([ev(400, 'down', { button: 'left', x: 5, y: 5 })])).toEqual([]);
    pointed = { windowId: '0x2c00007', title: 'Form', app: 'Gtk-form.py', pid: 8, bounds };
    expect(await x.filter([ev(500, 'down', { button: 'left', x: 50, y: 50 })])).toHaveLength(1);
    // on the screen: its region is blanked like an excluded window's
    expect(selected).toEqual(['0x4000001']);
  });
});
