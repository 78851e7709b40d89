// The desktop app's main process: the composition root of the Electron host
// (docs/architecture.md §1-§3). One instance per user (a second launch focuses the first); the
// library opened like every host does (openLibraryForHost: crash recovery, clean-up), its
// notices shown to the user; the services of createServices bound over IPC (./ipc.ts) with
// events pushed to every window; the renderer and media served by the app's own protocols with
// a strict CSP (never file://); the tray, global hotkeys and HUD of the recording UX.
import { libraryDirSetting, readAppConfig } from './app-config';
import { firstPageUrl, hostHealthChecks, isSettingsPaneUrl } from './permissions';
import path from 'node:path';
import {
  app,
  BrowserWindow,
  dialog,
  globalShortcut,
  ipcMain,
  Menu,
  nativeImage,
  protocol,
  safeStorage,
  screen,
  session,
  shell,
  systemPreferences,
  Tray,
  utilityProcess,
} from 'electron';
import type { ApiEvent, ApiEvents } from '../shared/contract';
import { HUD_EVENTS, HUD_METHODS } from '../shared/contract/hud';
import {
  createServices,
  openLibraryForHost,
  type Library,
  type Services,
} from '../services/create-services';
import { createAppHandler } from './app-protocol';
import {
  DEFAULT_APP_HOTKEYS,
  registerHotkeys,
  type AppHotkeys,
  type HotkeyRegistration,
} from './hotkeys';
import { safeStorageCredentialStore } from './hub-credential-store';
import { broadcastEvent, createSenderCheck, registerIpc } from './ipc';
import { utilityProcessLauncher } from './launcher';
import { createMediaHandler, mediaUrl } from './media-protocol';
import { ownWindowIds as nativeIdsOf } from './own-windows';
import { dispatchRecorderControls, toRecorderSnapshot } from './recorder-controls';
import { createViewApplier, RecordingShell } from './recording-shell';
import { APP_ORIGIN, APP_SCHEME, MEDIA_SCHEME, originOf, PRIVILEGED_SCHEMES } from './schemes';
import { trayIconDataUrl } from './tray-icons';
import { createHudWindow, createMainWindow, recordPageUrl } from './windows';
import {
  devContentSecurityPolicy,
  hardenSession,
  hardenWebContents,
  APP_CONTENT_SECURITY_POLICY,
} from './window-security';

/** out/main: the bundle's folder (the renderer and the preload sit beside it). */
const MODULE_DIR = import.meta.dirname;
const RENDERER_DIR = path.join(MODULE_DIR, '..', 'renderer');
const PRELOAD_PATH = path.join(MODULE_DIR, '..', 'preload', 'index.cjs');
/** The HUD's preload: the HUD's methods only (src/shared/contract/hud.ts). */
const HUD_PRELOAD_PATH = path.join(MODULE_DIR, '..', 'preload', 'hud.cjs');
const HUD_METHOD_SET: ReadonlySet<string> = new Set(HUD_METHODS);
const HUD_EVENT_SET: ReadonlySet<string> = new Set(HUD_EVENTS);
/** The contract event the recording UX follows. */
const RECORDER_STATUS_EVENT = 'recorder:status-changed';

/** `npm run dev`: electron-vite's dev server serves the renderer (never in a packaged app). */
const DEV_URL = !app.isPackaged ? (process.env.ELECTRON_RENDERER_URL ?? null) : null;
const PAGE_URL = DEV_URL ?? `${APP_ORIGIN}/index.html`;
const PAGE_ORIGIN = (DEV_URL === null ? null : originOf(DEV_URL)) ?? APP_ORIGIN;

let mainWindow: BrowserWindow | null = null;
let hudWindow: BrowserWindow | null = null;
let isQuitting = false;
/** True while a recording is under way: the main window stays out of the video then. */
let isRecording = (): boolean => false;

/** Every live window of the app (main and HUD). */
function appWindows(): BrowserWindow[] {
  return [mainWindow, hudWindow].filter((w): w is BrowserWindow => w !== null && !w.isDestroyed());
}

/**
 * The native window ids of the app's windows (read at each call: the HUD opens later), for the
 * recorder (createServices' appWindows): it leaves these windows out of the recording (their
 * focus, keys, clicks and place on the screen) and takes a press on one for the app's own
 * pause/stop gesture.
 */
export function ownWindowIds(): number[] {
  return nativeIdsOf(BrowserWindow.getAllWindows());
}

/** The child launcher of the app: the input hook as a utility process from out/main. */
export const childLauncher = utilityProcessLauncher(utilityProcess, { bundleDir: MODULE_DIR });

function showMainWindow(url?: string): void {
  if (mainWindow === null || mainWindow.isDestroyed()) {
    return;
  }
  if (url !== undefined) {
    void mainWindow.loadURL(url);
  }
  if (mainWindow.isMinimized()) {
    mainWindow.restore();
  }
  mainWindow.show();
  mainWindow.focus();
}

function notify(text: string): void {
  void dialog.showMessageBox({ type: 'info', title: 'cua-annotator', message: text });
}

// What openLibraryForHost said (recoveries after a crash, clean-ups), told once the app is up.
function showOpenNotices(notices: readonly string[]): void {
  if (notices.length === 0) {
    return;
  }
  const recovered = notices.some((n) => n.startsWith('recovered '));
  void dialog.showMessageBox({
    type: recovered ? 'warning' : 'info',
    title: 'cua-annotator',
    message: recovered
      ? 'A recording was interrupted last time. What it captured has been saved.'
      : 'The library was tidied up after an interruption.',
    detail: notices.join('\n'),
  });
}

// The host's own health checks now (macOS permissions, Windows DPI; none on Linux).
function readHostChecks() {
  return hostHealthChecks(process.platform, {
    mac: systemPreferences,
    scaleFactor: () => screen.getPrimaryDisplay().scaleFactor,
  });
}

// The onboarding's fixes link to the OS settings pane that grants a permission.
function openSettingsPane(url: string): void {
  // checked here too: nothing but a settings pane ever reaches openExternal
  if (isSettingsPaneUrl(url)) {
    void shell.openExternal(url);
  }
}

async function readHotkeys(services: Services): Promise<AppHotkeys> {
  const result = await services.dispatch('settings:get', {});
  if (result.ok) {
    const hotkeys = (result.value as { hotkeys?: Partial<AppHotkeys> }).hotkeys;
    return { ...DEFAULT_APP_HOTKEYS, ...hotkeys };
  }
  return { ...DEFAULT_APP_HOTKEYS };
}

async function openLibrary(notices: string[]): Promise<Library | null> {
  try {
    // the folder chosen in Settings (kept outside any library), else the usual resolution
    const configured = readAppConfig(app.getPath('userData')).libraryDir;
    return await openLibraryForHost({
      ...(configured ? { flag: configured } : {}),
      create: true,
      notice: (line) => notices.push(line),
    });
  } catch (e) {
    const { message, fix } = e as { message: string; fix?: string };
    dialog.showErrorBox(
      'cua-annotator cannot open its library',
      fix === undefined ? message : `${message}\n\n${fix}`,
    );
    return null;
  }
}

async function start(): Promise<void> {
  const notices: string[] = [];
  const lib = await openLibrary(notices);
  if (lib === null) {
    app.quit();
    return;
  }
  let shell: RecordingShell | null = null;
  const emit = <E extends ApiEvent>(event: E, payload: ApiEvents[E]): void => {
    // the HUD hears only what its page listens to (src/shared/contract/hud.ts)
    const listeners = appWindows().filter((w) => w !== hudWindow || HUD_EVENT_SET.has(event));
    broadcastEvent(listeners, event, payload);
    if ((event as string) === RECORDER_STATUS_EVENT) {
      const snapshot = toRecorderSnapshot(payload);
      if (snapshot !== null) {
        shell?.onStatus(snapshot);
      }
    }
  };
  const services = createServices(lib, {
    appVersion: app.getVersion(),
    emit,
    mediaUrl,
    log: (line) => process.stderr.write(`${line}\n`),
    // upload credentials are kept encrypted by the OS keychain (settings:set)
    secretCipher: safeStorage,
    // the input hook runs as a utility process from its bundled entry (out/main/hook-child.js)
    launcher: childLauncher,
    // the HUD and the main window, by native id: X11 has no content protection for the HUD
    appWindows: () => ({ windowIds: ownWindowIds() }),
    libraryDirSetting: libraryDirSetting(app.getPath('userData')),
    // macOS permissions and Windows DPI, on the Health page after the doctor's checks
    hostHealthChecks: readHostChecks,
    // the hub's token encrypted by the OS keychain; submits the hub could not take are retried
    team: {
      credentials: safeStorageCredentialStore(safeStorage, {
        userDataDir: app.getPath('userData'),
        libraryDir: lib.dir,
      }),
      retry: {},
    },
  });

  hardenSession(
    session.defaultSession,
    DEV_URL === null ? APP_CONTENT_SECURITY_POLICY : devContentSecurityPolicy(PAGE_ORIGIN),
  );
  protocol.handle(APP_SCHEME, createAppHandler(RENDERER_DIR));
  protocol.handle(
    MEDIA_SCHEME,
    createMediaHandler({ libraryDir: lib.dir, resolveMedia: services.resolveMedia }),
  );
  const isOwnWebContents = (contents: Electron.WebContents): boolean =>
    appWindows().some((w) => w.webContents === contents);
  let onSettingsChanged = (): void => undefined;
  const dispatcher = {
    dispatch: async (method: string, payload: unknown) => {
      const result = await services.dispatch(method, payload);
      if (method === 'settings:set' && result.ok) {
        // new hotkeys take effect at once
        onSettingsChanged();
      }
      return result;
    },
  };
  const disposeIpc = registerIpc(ipcMain, dispatcher, {
    isTrustedSender: createSenderCheck({ appOrigin: PAGE_ORIGIN, isOwnWebContents }),
    onRefused: (method, reason) => process.stderr.write(`ipc: refused ${method}: ${reason}\n`),
    // the HUD calls its handful of methods only, whatever its page asks
    methodsOf: (event) =>
      hudWindow !== null && !hudWindow.isDestroyed() && event.sender === hudWindow.webContents
        ? HUD_METHOD_SET
        : null,
  });

  const windowOptions = {
    preloadPath: PRELOAD_PATH,
    hudPreloadPath: HUD_PRELOAD_PATH,
    pageUrl: PAGE_URL,
    appOrigin: PAGE_ORIGIN,
    openSettingsPane,
  };
  // onboarding: while a permission only the OS grants is missing (macOS quits and reopens the
  // app after Screen Recording is granted), the app opens on the Health page
  mainWindow = createMainWindow(BrowserWindow, {
    ...windowOptions,
    pageUrl: firstPageUrl(PAGE_URL, readHostChecks()),
  });
  mainWindow.on('close', (event) => {
    // the app lives in the tray: closing the window hides it
    if (!isQuitting) {
      event.preventDefault();
      mainWindow?.hide();
    }
  });
  const hud = (create: boolean): BrowserWindow | null => {
    if (!create) {
      return hudWindow === null || hudWindow.isDestroyed() ? null : hudWindow;
    }
    if (hudWindow === null || hudWindow.isDestroyed()) {
      hudWindow = createHudWindow(BrowserWindow, { ...windowOptions, platform: process.platform });
    }
    return hudWindow;
  };

  const tray = new Tray(nativeImage.createFromDataURL(trayIconDataUrl('idle')));
  let trayPhase = 'idle';
  const apply = createViewApplier({
    tray,
    buildMenu: (template) => Menu.buildFromTemplate(template),
    hud,
    main: mainWindow,
    notify,
    onTrayItem: (id) => {
      if (id === 'quit') {
        app.quit();
      } else if (id === 'show') {
        showMainWindow();
      } else {
        shell?.onTrayItem(id);
      }
    },
  });
  shell = new RecordingShell({
    controls: dispatchRecorderControls(services),
    askTask: () => showMainWindow(recordPageUrl(PAGE_URL)),
    render: (view) => {
      apply(view);
      if (view.tray.phase !== trayPhase) {
        trayPhase = view.tray.phase;
        tray.setImage(nativeImage.createFromDataURL(trayIconDataUrl(view.tray.phase)));
      }
    },
  });
  const recordingShell = shell;
  isRecording = () => recordingShell.state.phase !== 'idle';
  const ticker = setInterval(() => {
    if (recordingShell.state.phase === 'recording') {
      recordingShell.refresh();
    }
  }, 1000);

  let hotkeys: HotkeyRegistration | null = null;
  const bindHotkeys = async (): Promise<void> => {
    hotkeys?.unregister();
    const bindings = await readHotkeys(services);
    // registered also while recording, so the chord never reaches the application recorded
    hotkeys = registerHotkeys(globalShortcut, bindings, (action) =>
      recordingShell.send({ type: 'hotkey', action }),
    );
    const shown = Object.fromEntries(
      hotkeys.report.registered.map((r) => [r.action, r.accelerator]),
    );
    recordingShell.setHotkeys(shown);
    if (hotkeys.report.conflicts.length > 0) {
      notify(hotkeys.report.conflicts.map((c) => c.message).join('\n'));
    }
  };
  onSettingsChanged = () => void bindHotkeys();
  await bindHotkeys();
  await recordingShell.sync();
  showOpenNotices(notices);

  app.on('will-quit', (event) => {
    if (services.closed) {
      return;
    }
    event.preventDefault();
    clearInterval(ticker);
    hotkeys?.unregister();
    globalShortcut.unregisterAll();
    disposeIpc();
    tray.destroy();
    // stops the recorder (saving what it captured), uploads and keyframe jobs, then the library
    void (async () => {
      try {
        await services.close();
      } finally {
        lib.close();
        app.quit();
      }
    })();
  });
}

protocol.registerSchemesAsPrivileged(PRIVILEGED_SCHEMES);

if (!app.requestSingleInstanceLock()) {
  // another instance runs: it gets our 'second-instance' and shows itself
  app.quit();
} else {
  // a second launch shows this instance, unless that would put the window into a recording
  app.on('second-instance', () => {
    if (!isRecording()) {
      showMainWindow();
    }
  });
  app.on('before-quit', () => {
    isQuitting = true;
  });
  // every WebContents, also ones we do not create ourselves, gets the navigation guards
  app.on('web-contents-created', (_event, contents) =>
    hardenWebContents(contents, { appOrigin: PAGE_ORIGIN, openSettingsPane }),
  );
  // the tray keeps the app running without windows
  app.on('window-all-closed', () => undefined);
  void (async () => {
    await app.whenReady();
    await start();
  })();
}
