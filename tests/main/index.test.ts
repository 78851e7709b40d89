// The main process's composition root against a mocked `electron` (no Electron runs here), on a
// real temp library: single-instance lock, protocols, IPC for every method through the real
// services with the sender check, secure windows, the crash-recovery notice, tray and hotkeys,
// and an orderly quit.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { normalizeAccelerator } from '../../src/main/hotkeys';
import type * as CreateServicesModule from '../../src/services/create-services';
import { openLibrary } from '../../src/services/library/library';
import { API_METHODS } from '../../src/shared/contract';
import { makeRecording } from '../helpers/store';
import { until } from '../helpers/wait';

type Listener = (...args: unknown[]) => unknown;

const electron = vi.hoisted(() => {
  const on = (map: Map<string, Listener[]>) => (name: string, listener: Listener) => {
    map.set(name, [...(map.get(name) ?? []), listener]);
  };
  const appListeners = new Map<string, Listener[]>();
  let resolveReady: () => void = () => undefined;
  const ready = new Promise<void>((resolve) => (resolveReady = resolve));
  const windows: FakeWindowT[] = [];
  type FakeWindowT = InstanceType<typeof FakeWindow>;
  class FakeWindow {
    static getAllWindows = () => windows.filter((w) => !w.destroyed);
    readonly listeners = new Map<string, Listener[]>();
    readonly calls: string[] = [];
    destroyed = false;
    visible = false;
    url = '';
    readonly webContents: Record<string, unknown>;
    constructor(readonly options: { webPreferences?: Record<string, unknown> }) {
      const isDestroyed = () => this.destroyed;
      const mainFrame = () => ({
        url: this.url,
        parent: null,
        processId: 1,
        routingId: windows.indexOf(this) + 1,
        detached: false,
        isDestroyed: () => false,
      });
      const contentsListeners = new Map<string, Listener[]>();
      this.webContents = {
        listeners: contentsListeners,
        on: on(contentsListeners),
        setWindowOpenHandler: vi.fn(),
        send: vi.fn(),
        isDestroyed,
        get mainFrame() {
          return mainFrame();
        },
      };
      windows.push(this);
    }
    on = (name: string, l: Listener) => on(this.listeners)(name, l);
    once = (name: string, l: Listener) => on(this.listeners)(name, l);
    loadURL = (url: string) => ((this.url = url), Promise.resolve());
    show = () => ((this.visible = true), this.calls.push('show'));
    showInactive = () => ((this.visible = true), this.calls.push('showInactive'));
    hide = () => ((this.visible = false), this.calls.push('hide'));
    focus = () => this.calls.push('focus');
    isVisible = () => this.visible;
    isMinimized = () => false;
    restore = () => undefined;
    isDestroyed = () => this.destroyed;
    setAlwaysOnTop = vi.fn();
    setVisibleOnAllWorkspaces = vi.fn();
    setContentProtection = vi.fn();
    getNativeWindowHandle = () => {
      const b = Buffer.alloc(8);
      b.writeBigUInt64LE(BigInt(0x4000000 + windows.indexOf(this)));
      return b;
    };
  }
  const trays: { tooltip: string; menu: unknown; destroyed: boolean }[] = [];
  class FakeTray {
    state = { tooltip: '', menu: null as unknown, destroyed: false };
    constructor() {
      trays.push(this.state);
    }
    setToolTip = (t: string) => (this.state.tooltip = t);
    setContextMenu = (m: unknown) => (this.state.menu = m);
    setImage = vi.fn();
    destroy = () => (this.state.destroyed = true);
  }
  const handlers = new Map<string, Listener>();
  const shortcuts = new Map<string, () => void>();
  return {
    lock: true,
    appListeners,
    resolveReady,
    windows,
    trays,
    handlers,
    shortcuts,
    protocolHandlers: new Map<string, (r: Request) => Promise<Response>>(),
    privileged: [] as unknown[],
    dialogs: [] as unknown[],
    errors: [] as unknown[],
    quit: vi.fn(),
    app: {
      isPackaged: true,
      requestSingleInstanceLock: () => electronLock(),
      quit: () => electronQuit(),
      on: on(appListeners),
      whenReady: () => ready,
      getVersion: () => '9.9.9',
      // no app config there: the library comes from CUA_ANNOTATOR_LIBRARY
      getPath: (name: string) => `/nonexistent/cua-annotator-test/${name}`,
    },
    FakeWindow,
    FakeTray,
  };
  function electronLock(): boolean {
    return (globalThis as { __lock?: boolean }).__lock ?? true;
  }
  function electronQuit(): void {
    (globalThis as { __quits?: number }).__quits =
      ((globalThis as { __quits?: number }).__quits ?? 0) + 1;
  }
});

// the options the composition root gives the services (the real ones are built from them)
const created = vi.hoisted(() => ({
  options: [] as { appWindows?: () => { windowIds?: readonly number[] } }[],
}));
vi.mock('../../src/services/create-services', async (importOriginal) => {
  const actual = await importOriginal<typeof CreateServicesModule>();
  return {
    ...actual,
    createServices: (...args: Parameters<typeof actual.createServices>) => {
      created.options.push(args[1]);
      return actual.createServices(...args);
    },
  };
});

vi.mock('electron', () => ({
  app: electron.app,
  BrowserWindow: electron.FakeWindow,
  Tray: electron.FakeTray,
  dialog: {
    showMessageBox: (options: unknown) => (electron.dialogs.push(options), Promise.resolve({})),
    showErrorBox: (...args: unknown[]) => electron.errors.push(args),
  },
  globalShortcut: {
    register: (accelerator: string, callback: () => void) => (
      electron.shortcuts.set(accelerator, callback),
      true
    ),
    unregister: (accelerator: string) => electron.shortcuts.delete(accelerator),
    unregisterAll: () => electron.shortcuts.clear(),
  },
  ipcMain: {
    handle: (channel: string, handler: Listener) => electron.handlers.set(channel, handler),
    removeHandler: (channel: string) => electron.handlers.delete(channel),
  },
  Menu: { buildFromTemplate: (template: unknown) => ({ template }) },
  // the host health checks (none on Linux) and the settings-pane opener
  systemPreferences: {
    isTrustedAccessibilityClient: () => true,
    getMediaAccessStatus: () => 'granted',
  },
  screen: { getPrimaryDisplay: () => ({ scaleFactor: 1 }) },
  shell: { openExternal: () => Promise.resolve() },
  nativeImage: { createFromDataURL: (url: string) => ({ url }) },
  protocol: {
    registerSchemesAsPrivileged: (schemes: unknown[]) => electron.privileged.push(...schemes),
    handle: (scheme: string, handler: (r: Request) => Promise<Response>) =>
      electron.protocolHandlers.set(scheme, handler),
  },
  session: {
    defaultSession: {
      setPermissionRequestHandler: vi.fn(),
      setPermissionCheckHandler: vi.fn(),
      webRequest: { onHeadersReceived: vi.fn() },
    },
  },
  utilityProcess: { fork: vi.fn() },
  safeStorage: {
    isEncryptionAvailable: () => true,
    getSelectedStorageBackend: () => 'gnome_libsecret',
    encryptString: (text: string) => Buffer.from(`enc:${text}`),
    decryptString: (data: Buffer) => data.toString().slice('enc:'.length),
  },
}));

const libraryDir = fs.mkdtempSync(path.join(os.tmpdir(), 'cua-app-lib-'));
const savedEnv = process.env.CUA_ANNOTATOR_LIBRARY;
afterAll(() => {
  process.env.CUA_ANNOTATOR_LIBRARY = savedEnv;
  fs.rmSync(libraryDir, { recursive: true, force: true });
});

function normalize(accelerator: string): string {
  const n = normalizeAccelerator(accelerator);
  return n.ok ? n.value : `invalid ${accelerator}`;
}

const quits = (): number => (globalThis as { __quits?: number }).__quits ?? 0;

describe('main process composition root', () => {
  it('a second instance quits at once, opening nothing', async () => {
    (globalThis as { __lock?: boolean }).__lock = false;
    vi.resetModules();
    await import('../../src/main/index');
    expect(quits()).toBe(1);
    expect(electron.appListeners.has('second-instance')).toBe(false);
    expect(electron.windows).toHaveLength(0);
    // schemes are registered before the lock is even asked (required before 'ready')
    expect(electron.privileged.map((s) => (s as { scheme: string }).scheme)).toEqual([
      'cua-app',
      'cua-media',
    ]);
  });

  it('opens the library (crash notice), serves IPC, protocols, windows, tray and hotkeys', async () => {
    // a recording a crashed recorder left active: the app recovers it and says so
    const lib = openLibrary(libraryDir, { create: true });
    const { id } = makeRecording(lib.db, { status: 'active' });
    lib.close();
    process.env.CUA_ANNOTATOR_LIBRARY = libraryDir;
    (globalThis as { __lock?: boolean }).__lock = true;
    electron.privileged.length = 0;
    vi.resetModules();
    const main = await import('../../src/main/index');
    electron.resolveReady();
    await until(() => electron.dialogs.length > 0, 'the start-up notice', 20_000);

    // every contract method has its handler
    expect([...electron.handlers.keys()].sort()).toEqual(API_METHODS.map((m) => `cua:${m}`).sort());
    expect([...electron.protocolHandlers.keys()].sort()).toEqual(['cua-app', 'cua-media']);

    // the main window: secure, on the app protocol; shown when ready
    const [mainWindow] = electron.windows;
    expect(mainWindow!.options.webPreferences).toMatchObject({
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      webSecurity: true,
    });
    expect(String(mainWindow!.options.webPreferences!.preload)).toMatch(/preload[/\\]index\.cjs$/);
    expect(mainWindow!.url).toBe('cua-app://app/index.html');

    // the crash-recovery notice names the recovered recording
    const notice = electron.dialogs[0] as { message: string; detail: string };
    expect(notice.message).toMatch(/interrupted/);
    expect(notice.detail).toContain(`recovered ${id}`);

    // a call from the main window reaches the real services; a foreign frame does not
    const list = electron.handlers.get('cua:recordings:list')!;
    const sender = mainWindow!.webContents as { mainFrame: unknown };
    const fromApp = { sender, senderFrame: sender.mainFrame };
    await expect(list(fromApp, {})).resolves.toMatchObject({ ok: true, value: { total: 1 } });
    const fromIframe = {
      sender,
      senderFrame: { ...(sender.mainFrame as object), parent: {}, routingId: 99 },
    };
    await expect(list(fromIframe, {})).resolves.toMatchObject({
      ok: false,
      error: { code: 'FORBIDDEN' },
    });
    await expect(
      electron.handlers.get('cua:recordings:get')!(fromApp, { id: 7 }),
    ).resolves.toMatchObject({ ok: false, error: { code: 'INVALID_PAYLOAD' } });

    // the app protocol serves the built renderer folder only (out/renderer beside out/main)
    const page = await electron.protocolHandlers.get('cua-app')!(
      new Request('cua-app://app/..%2f..%2fpackage.json'),
    );
    expect(page.status).toBe(404);

    // tray and the default hotkeys
    expect(electron.trays).toHaveLength(1);
    expect(electron.trays[0]!.tooltip).toBe('cua-annotator: ready');
    // the settings' hotkeys (settings:get), registered in canonical form
    const settings = (await electron.handlers.get('cua:settings:get')!(fromApp, {})) as {
      ok: true;
      value: { hotkeys: { startStop: string; pause: string }; canStoreCredentials: boolean };
    };
    const { hotkeys } = settings.value;
    expect([...electron.shortcuts.keys()].sort()).toEqual(
      [hotkeys.startStop, hotkeys.pause].map((a) => normalize(a)).sort(),
    );

    // the tray shows each hotkey in Electron's form beside its item
    const menu = electron.trays[0]!.menu as { template: { id?: string; accelerator?: string }[] };
    expect(menu.template.find((i) => i.id === 'toggle-recording')?.accelerator).toBe(
      normalize(hotkeys.startStop),
    );

    // the app keeps upload credentials (through safeStorage), so the settings say it can
    expect(settings.value).toMatchObject({ canStoreCredentials: true });

    // the hub's token is kept through safeStorage too (src/main/hub-credential-store.ts)
    const team = (await electron.handlers.get('cua:team:status')!(fromApp, {})) as {
      ok: true;
      value: { signedIn: boolean; tokenPlace: string };
    };
    expect(team.value).toMatchObject({
      signedIn: false,
      tokenPlace: expect.stringMatching(/keychain/) as unknown,
    });

    // the start/stop hotkey with no task yet opens the Record page to ask for one
    electron.shortcuts.get(normalize(hotkeys.startStop))!();
    expect(mainWindow!.url).toBe('cua-app://app/index.html#/record');
    expect(electron.trays[0]!.tooltip).toBe('cua-annotator: ready');

    // own windows for the recorder
    expect(main.ownWindowIds()).toEqual([0x4000000]);

    // item 37: the HUD (opened when a recording starts; with no display this one fails at once)
    // loads the HUD's own preload, reaches only the HUD's methods over IPC, and hears only the
    // recorder's status
    const savedDisplay = process.env.DISPLAY;
    delete process.env.DISPLAY;
    try {
      await electron.handlers.get('cua:recorder:start')!(fromApp, { task: 'HUD bridge' });
    } finally {
      process.env.DISPLAY = savedDisplay;
    }
    const hudWindow = electron.windows.find((w) => w.url.endsWith('#/hud'));
    expect(hudWindow, 'the HUD window').toBeDefined();
    expect(String(hudWindow!.options.webPreferences!.preload)).toMatch(/preload[/\\]hud\.cjs$/);
    const hudSender = hudWindow!.webContents as {
      mainFrame: unknown;
      send: ReturnType<typeof vi.fn>;
    };
    const fromHud = { sender: hudSender, senderFrame: hudSender.mainFrame };
    for (const method of [
      'recorder:get-status',
      'recorder:pause',
      'recorder:resume',
      'recorder:stop',
    ]) {
      const r = (await electron.handlers.get(`cua:${method}`)!(fromHud, {})) as {
        ok: boolean;
        error?: { code: string };
      };
      expect(r.ok || r.error?.code !== 'FORBIDDEN', `${method} from the HUD`).toBe(true);
    }
    for (const method of ['recordings:list', 'settings:set', 'exports:run', 'recorder:start']) {
      await expect(
        electron.handlers.get(`cua:${method}`)!(fromHud, {}),
        `${method} from the HUD`,
      ).resolves.toMatchObject({ ok: false, error: { code: 'FORBIDDEN' } });
    }
    // the main window still reaches everything
    await expect(list(fromApp, {})).resolves.toMatchObject({ ok: true });
    const hudEvents = hudSender.send.mock.calls.map((c) => (c[1] as { event: string }).event);
    expect(hudEvents.length).toBeGreaterThan(0);
    expect(new Set(hudEvents)).toEqual(new Set(['recorder:status-changed']));

    // item 37: the recorder gets the app's window ids, the HUD's among them, read at each call
    // (the recorder leaves these windows out of the recording: X11 cannot hide the HUD)
    const appWindows = created.options.at(-1)?.appWindows;
    expect(appWindows, 'createServices({ appWindows })').toBeTypeOf('function');
    expect([...(appWindows?.().windowIds ?? [])].sort()).toEqual([0x4000000, 0x4000001]);

    // a second launch focuses the window
    for (const l of electron.appListeners.get('second-instance') ?? []) {
      l();
    }
    expect(mainWindow!.calls).toContain('focus');

    // closing the window hides it to the tray
    const close = { preventDefault: vi.fn() };
    for (const l of mainWindow!.listeners.get('close') ?? []) {
      l(close);
    }
    expect(close.preventDefault).toHaveBeenCalled();

    // quitting closes the services and the library, then quits for real
    const quitsBefore = quits();
    const willQuit = { preventDefault: vi.fn() };
    for (const l of electron.appListeners.get('will-quit') ?? []) {
      l(willQuit);
    }
    expect(willQuit.preventDefault).toHaveBeenCalled();
    await until(() => quits() > quitsBefore, 'the quit after closing', 20_000);
    expect(electron.handlers.size).toBe(0);
    expect(electron.shortcuts.size).toBe(0);
    expect(electron.trays[0]!.destroyed).toBe(true);
    // the library is closed: it can be opened again by another process
    const again = openLibrary(libraryDir);
    expect(again.db.prepare('SELECT status FROM recordings').get()).not.toEqual({
      status: 'active',
    });
    again.close();
  });
});
