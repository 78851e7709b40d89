// The Windows helper's handlers, capabilities and pollers over fake Win32 and UIA backends, and
// spoken through the real protocol loop (serveHelper) on in-memory streams: negative monitor
// coordinates, scale from DPI, activeWindow, permissions, the no-UIA start (Wine), focus and
// displays events, the per-call timeout around a snapshot.
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { HelperFailure, serveHelper } from '../../../src/helpers/runtime/serve';
import { DEFAULT_CALL_TIMEOUT_MS, createWin32Helper } from '../../../src/helpers/win32/helper';
import { exeBaseName } from '../../../src/helpers/win32/ffi/win32';
import type {
  Win32Backend,
  Win32Monitor,
  Win32Window,
} from '../../../src/helpers/win32/uia-backend';
import type { FakeNode } from './fake-uia';
import { FakeUia } from './fake-uia';

class FakeWin32 implements Win32Backend {
  window: Win32Window | null = {
    hwnd: 0n,
    title: 'Settings',
    pid: 4242,
    rect: { left: -1920, top: -40, right: -200, bottom: 1000 },
  };
  layout: Win32Monitor[] = [
    {
      device: '\\\\.\\DISPLAY1',
      rect: { left: 0, top: 0, right: 2560, bottom: 1440 },
      primary: true,
      dpi: 144,
    },
    {
      device: '\\\\.\\DISPLAY2',
      rect: { left: -1920, top: -120, right: 0, bottom: 960 },
      primary: false,
      dpi: 96,
    },
  ];
  foregroundWindow(): Win32Window | null {
    return this.window;
  }
  monitors(): Win32Monitor[] {
    return this.layout;
  }
  processName(pid: number): string | null {
    return pid === 4242 ? 'SystemSettings' : null;
  }
}

function uiaWith(focused: FakeNode | null = null): FakeUia {
  const password: FakeNode = { controlType: 50004, name: 'secret', isPassword: true, pid: 4242 };
  const window: FakeNode = {
    controlType: 50032,
    name: 'Settings',
    pid: 4242,
    children: [password],
  };
  return new FakeUia({ children: [window] }, 1, () => password, focused);
}

describe('createWin32Helper', () => {
  it('answers displays in physical pixels with negative origins and scale = dpi / 96', () => {
    const helper = createWin32Helper({ win32: new FakeWin32(), uia: null, nowMs: () => 0 });
    expect(helper.handlers.displays?.({})).toEqual([
      {
        id: '\\\\.\\DISPLAY1',
        bounds: { x: 0, y: 0, width: 2560, height: 1440 },
        scale: 1.5,
        primary: true,
        name: '\\\\.\\DISPLAY1',
      },
      {
        id: '\\\\.\\DISPLAY2',
        bounds: { x: -1920, y: -120, width: 1920, height: 1080 },
        scale: 1,
        primary: false,
        name: '\\\\.\\DISPLAY2',
      },
    ]);
  });

  it('answers activeWindow through Win32 and permissions as not required', () => {
    const helper = createWin32Helper({ win32: new FakeWin32(), uia: null, nowMs: () => 0 });
    expect(helper.handlers.activeWindow?.({})).toEqual({
      title: 'Settings',
      app: 'SystemSettings',
      pid: 4242,
      bounds: { x: -1920, y: -40, width: 1720, height: 1040 },
      windowId: '0',
    });
    expect(helper.handlers.permissions?.({})).toEqual({
      accessibility: 'not-required',
      screenRecording: 'not-required',
      inputMonitoring: 'not-required',
    });
    const win32 = new FakeWin32();
    win32.window = null;
    expect(
      createWin32Helper({ win32, uia: null, nowMs: () => 0 }).handlers.activeWindow?.({}),
    ).toBeNull();
  });

  it('without UI Automation announces only the Win32 capabilities and fails UIA methods with the HRESULT', () => {
    const helper = createWin32Helper({
      win32: new FakeWin32(),
      uia: null,
      uiaError: 'CoCreateInstance(ff48dba4-…) failed with HRESULT 0x80040154 (REGDB_E_CLASSNOTREG)',
      nowMs: () => 0,
    });
    expect(helper.capabilities).toEqual(['activeWindow', 'displays', 'permissions']);
    for (const method of ['elementAt', 'snapshotFocusedWindow', 'focusedIsSecure'] as const) {
      let failure: unknown;
      try {
        helper.handlers[method]?.({ x: 1, y: 2, maxNodes: 10, maxMs: 100, maxChildrenPerNode: 5 });
      } catch (error) {
        failure = error;
      }
      expect(failure).toBeInstanceOf(HelperFailure);
      expect((failure as HelperFailure).code).toBe('ACCESSIBILITY_UNAVAILABLE');
      expect((failure as HelperFailure).message).toContain('0x80040154');
    }
    expect(helper.pollFocus()).toBeNull();
  });

  it('with UI Automation answers elementAt with the app, pid and secure flag', () => {
    const uia = uiaWith();
    const helper = createWin32Helper({ win32: new FakeWin32(), uia, nowMs: uia.clock });
    expect(helper.capabilities).toEqual([
      'elementAt',
      'snapshot',
      'secure',
      'focusEvents',
      'activeWindow',
      'displays',
      'permissions',
    ]);
    const result = helper.handlers.elementAt?.({ x: -10.4, y: 5.6 });
    expect(result).toMatchObject({ app: 'SystemSettings', pid: 4242, isSecure: true });
    expect(JSON.stringify(result)).not.toContain('secret');
    expect(() => helper.handlers.elementAt?.({ x: 'a', y: 1 })).toThrow(/param 'x'/);
  });

  it('snapshots the foreground window with the per-call timeout, then restores ~1 s', () => {
    const uia = uiaWith();
    const helper = createWin32Helper({ win32: new FakeWin32(), uia, nowMs: uia.clock });
    const snapshot = helper.handlers.snapshotFocusedWindow?.({
      maxNodes: 50,
      maxMs: 500,
      maxChildrenPerNode: 10,
      elementTimeoutMs: 200,
    });
    expect(snapshot).toMatchObject({ nodeCount: 2, truncated: false, app: 'SystemSettings' });
    expect(uia.callTimeouts).toEqual([200, DEFAULT_CALL_TIMEOUT_MS]);
    expect(uia.outstanding()).toBe(0);
    const win32 = new FakeWin32();
    win32.window = null;
    expect(
      createWin32Helper({ win32, uia, nowMs: uia.clock }).handlers.snapshotFocusedWindow?.({}),
    ).toEqual({
      root: null,
      nodeCount: 0,
      truncated: false,
      note: 'no window has focus',
    });
  });

  it('emits a focus change once, with isSecure, and a displays change once', () => {
    const field: FakeNode = { controlType: 50004, name: 'pw', isPassword: true, pid: 4242 };
    const button: FakeNode = { controlType: 50000, name: 'OK', pid: 4242 };
    const uia = new FakeUia({ children: [{ children: [field, button] }] }, 1, () => null, field);
    const win32 = new FakeWin32();
    const helper = createWin32Helper({ win32, uia, nowMs: uia.clock });
    expect(helper.pollFocus()).toEqual({
      role: 'EditControl',
      name: '',
      isSecure: true,
      app: 'SystemSettings',
      pid: 4242,
    });
    expect(helper.pollFocus()).toBeNull();
    uia.focused = button;
    expect(helper.pollFocus()).toMatchObject({
      role: 'ButtonControl',
      name: 'OK',
      isSecure: false,
    });
    expect(uia.outstanding()).toBe(0);

    expect(helper.pollDisplays()).toBeNull(); // the first poll records the layout
    expect(helper.pollDisplays()).toBeNull();
    win32.layout = [{ ...win32.layout[0]!, dpi: 192 }];
    expect(helper.pollDisplays()).toEqual([expect.objectContaining({ scale: 2, primary: true })]);
    expect(helper.pollDisplays()).toBeNull();
  });

  it('speaks the protocol through serveHelper: hello, answers in order, coded errors, exit on EOF', async () => {
    const helper = createWin32Helper({
      win32: new FakeWin32(),
      uia: null,
      uiaError: 'HRESULT 0x80040154',
      nowMs: () => 0,
    });
    const input = new PassThrough();
    const output = new PassThrough();
    const served = serveHelper({
      name: 'uia-helper',
      os: 'win32',
      capabilities: helper.capabilities,
      handlers: helper.handlers,
      input,
      output,
      pid: 99,
    });
    input.end(
      '{"id":1,"method":"displays"}\n{"id":2,"method":"elementAt","params":{"x":1,"y":1}}\n',
    );
    expect(await served.done).toBe('eof');
    const lines = String(output.read())
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines[0]).toEqual({
      type: 'hello',
      protocol: 2,
      capabilities: ['activeWindow', 'displays', 'permissions'],
      helper: { name: 'uia-helper', os: 'win32', pid: 99 },
    });
    expect(lines[1]).toMatchObject({ id: 1, ok: true });
    expect(lines[1].result[1].bounds.x).toBe(-1920);
    expect(lines[2]).toMatchObject({
      id: 2,
      ok: false,
      error: { code: 'ACCESSIBILITY_UNAVAILABLE' },
    });
  });

  it('names processes like AgentNet does (executable base name without .exe)', () => {
    expect(exeBaseName('C:\\Windows\\explorer.exe')).toBe('explorer');
    expect(exeBaseName('C:\\Program Files\\App\\Tool.EXE')).toBe('Tool');
    expect(exeBaseName('ShellExperienceHost')).toBe('ShellExperienceHost');
  });
});
