// The app's windows: the main window (the React app) and the recording HUD (a small frameless,
// always-on-top window on the renderer's `#/hud` route, kept out of screen captures where the OS
// allows it: content protection on Windows and macOS). Both get the secure preferences and the
// navigation guards of ./window-security.ts.
import type { BrowserWindow, BrowserWindowConstructorOptions } from 'electron';
import { hardenWebContents, secureWindowOptions, type HardenOptions } from './window-security';

/** A BrowserWindow constructor (Electron's, or a test's fake). */
export type BrowserWindowClass = new (options: BrowserWindowConstructorOptions) => BrowserWindow;

/** Options of {@link createMainWindow} and {@link createHudWindow}. */
export type AppWindowOptions = {
  /** The built preload of the main window (out/preload/index.cjs). */
  preloadPath: string;
  /** The built preload of the HUD (out/preload/hud.cjs): the HUD's methods only. */
  hudPreloadPath: string;
  /** URL of the renderer's index page (`cua-app://app/index.html`, or the dev server's). */
  pageUrl: string;
  /** The origin navigation is confined to. */
  appOrigin: string;
  onRefused?: HardenOptions['onRefused'];
  openSettingsPane?: HardenOptions['openSettingsPane'];
};

/** Size of the HUD, px. */
export const HUD_SIZE = { width: 340, height: 76 } as const;

// The main window: shown once its page is ready.
export function createMainWindow(
  Window: BrowserWindowClass,
  options: AppWindowOptions,
): BrowserWindow {
  const win = new Window(
    secureWindowOptions({
      preloadPath: options.preloadPath,
      width: 1280,
      height: 860,
      minWidth: 900,
      minHeight: 600,
      show: false,
      title: 'cua-annotator',
      backgroundColor: '#ffffff',
    }),
  );
  hardenWebContents(win.webContents, guardOptions(options));
  win.once('ready-to-show', () => win.show());
  void win.loadURL(options.pageUrl);
  return win;
}

// The HUD: frameless, always on top, on every workspace, never focused on show, excluded from
// screen captures where the OS supports it, hidden until a recording starts.
export function createHudWindow(
  Window: BrowserWindowClass,
  options: AppWindowOptions & { platform: NodeJS.Platform },
): BrowserWindow {
  const win = new Window(
    secureWindowOptions({
      preloadPath: options.hudPreloadPath,
      ...HUD_SIZE,
      show: false,
      frame: false,
      resizable: false,
      minimizable: false,
      maximizable: false,
      fullscreenable: false,
      skipTaskbar: true,
      alwaysOnTop: true,
      focusable: true,
      transparent: false,
      title: 'cua-annotator recording',
    }),
  );
  // 'screen-saver' stays above full-screen applications too
  win.setAlwaysOnTop(true, 'screen-saver');
  win.setVisibleOnAllWorkspaces(true, { visibleOnFullScreen: true });
  if (options.platform === 'win32' || options.platform === 'darwin') {
    // keeps the HUD out of screenshots and screen recordings (ours included); X11 has no such
    // mechanism, so on Linux the recorder must leave it out by its window id (./own-windows.ts)
    win.setContentProtection(true);
  }
  hardenWebContents(win.webContents, guardOptions(options));
  void win.loadURL(hudUrl(options.pageUrl));
  return win;
}

/** The HUD's page: the renderer's `#/hud` route. */
export function hudUrl(pageUrl: string): string {
  return `${pageUrl.replace(/#.*$/, '')}#/hud`;
}

/** The Record page (what the app shows when a hotkey start needs a task). */
export function recordPageUrl(pageUrl: string): string {
  return `${pageUrl.replace(/#.*$/, '')}#/record`;
}

function guardOptions(options: AppWindowOptions): HardenOptions {
  return {
    appOrigin: options.appOrigin,
    ...(options.onRefused === undefined ? {} : { onRefused: options.onRefused }),
    ...(options.openSettingsPane === undefined
      ? {}
      : { openSettingsPane: options.openSettingsPane }),
  };
}
