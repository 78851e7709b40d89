// What makes every window of the app safe to point at the renderer (docs/architecture.md §9):
// isolated, sandboxed web preferences without Node, a strict Content-Security-Policy on every
// response, no new windows, no navigation away from the app's origin, no webviews and no
// permission grants. Pure functions over the Electron objects they are given, so tests pass
// fakes.
import { isSettingsPaneUrl } from './permissions';
import type {
  BrowserWindowConstructorOptions,
  Event as ElectronEvent,
  Session,
  WebContents,
  WebPreferences,
} from 'electron';
import { MEDIA_ORIGIN, originOf } from './schemes';

/**
 * The renderer's Content-Security-Policy: scripts, styles and fonts only from the app itself,
 * media and images also from the media protocol; nothing may frame it, no plugins, no <base>,
 * no form posts.
 */
export const APP_CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  // React sets style attributes; the server host allows the same (src/server/respond.ts)
  "style-src 'self' 'unsafe-inline'",
  "font-src 'self'",
  `img-src 'self' data: blob: ${MEDIA_ORIGIN}`,
  `media-src 'self' blob: ${MEDIA_ORIGIN}`,
  "connect-src 'self'",
  "worker-src 'self' blob:",
  "object-src 'none'",
  "frame-src 'none'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
  "form-action 'none'",
].join('; ');

/** Web preferences of every window: isolation, sandbox, no Node, web security on. */
export function secureWebPreferences(preloadPath: string): WebPreferences {
  return {
    preload: preloadPath,
    contextIsolation: true,
    sandbox: true,
    nodeIntegration: false,
    nodeIntegrationInWorker: false,
    nodeIntegrationInSubFrames: false,
    webSecurity: true,
    allowRunningInsecureContent: false,
    webviewTag: false,
    experimentalFeatures: false,
    navigateOnDragDrop: false,
    spellcheck: false,
  };
}

/** Options of {@link secureWindowOptions}. */
export type SecureWindowOptions = Omit<BrowserWindowConstructorOptions, 'webPreferences'> & {
  /** The built preload script (out/preload/index.cjs). */
  preloadPath: string;
};

/** BrowserWindow options with {@link secureWebPreferences}; nothing can override them. */
export function secureWindowOptions(options: SecureWindowOptions): BrowserWindowConstructorOptions {
  const { preloadPath, ...rest } = options;
  return { ...rest, webPreferences: secureWebPreferences(preloadPath) };
}

/** True when `url` lies on `appOrigin` (the only place a window may navigate to). */
export function isAppUrl(url: string, appOrigin: string): boolean {
  return originOf(url) === appOrigin.toLowerCase();
}

/** The parts of WebContents {@link hardenWebContents} uses. */
export type HardenableWebContents = Pick<WebContents, 'setWindowOpenHandler' | 'on'>;

/** Options of {@link hardenWebContents}. */
export type HardenOptions = {
  /** The app's origin, e.g. `cua-app://app` (the dev server's in `npm run dev`). */
  appOrigin: string;
  /** Told about each refused navigation or window (for the log). */
  onRefused?: (what: 'window-open' | 'navigation' | 'webview', url: string) => void;
  /** Opens a system settings pane (x-apple.systempreferences:, ms-settings:) with the OS when
   * a page links to one (the onboarding's fixes); every other URL stays refused. */
  openSettingsPane?: (url: string) => void;
};

// Refuses every new window, every navigation off the app's origin (links, redirects, drags) and
// every <webview> of one WebContents.
export function hardenWebContents(contents: HardenableWebContents, options: HardenOptions): void {
  const refused = options.onRefused ?? (() => undefined);
  const toSettings = (url: string): boolean => {
    if (options.openSettingsPane && isSettingsPaneUrl(url)) {
      options.openSettingsPane(url);
      return true;
    }
    return false;
  };
  contents.setWindowOpenHandler(({ url }) => {
    if (!toSettings(url)) {
      refused('window-open', url);
    }
    return { action: 'deny' };
  });
  const guardNavigation = (event: ElectronEvent, url: string): void => {
    if (!isAppUrl(url, options.appOrigin)) {
      event.preventDefault();
      if (!toSettings(url)) {
        refused('navigation', url);
      }
    }
  };
  contents.on('will-navigate', (event, url) => guardNavigation(event, url));
  contents.on('will-redirect', (event, url) => guardNavigation(event, url));
  contents.on('will-frame-navigate', (event) => {
    if (!isAppUrl(event.url, options.appOrigin)) {
      event.preventDefault();
      refused('navigation', event.url);
    }
  });
  contents.on('will-attach-webview', (event, _preferences, params) => {
    event.preventDefault();
    refused('webview', params.src ?? '');
  });
}

/** The parts of a Session {@link hardenSession} uses. */
export type HardenableSession = {
  setPermissionRequestHandler: Session['setPermissionRequestHandler'];
  setPermissionCheckHandler: Session['setPermissionCheckHandler'];
  webRequest: { onHeadersReceived: Session['webRequest']['onHeadersReceived'] };
};

/**
 * The policy while `npm run dev` serves the renderer from Vite's dev server: its React refresh
 * preamble is an inline script and hot reload talks over a WebSocket. Never used by a build.
 */
export function devContentSecurityPolicy(devOrigin: string): string {
  const ws = devOrigin.replace(/^http/, 'ws');
  return APP_CONTENT_SECURITY_POLICY.replace(
    "script-src 'self'",
    "script-src 'self' 'unsafe-inline'",
  ).replace("connect-src 'self'", `connect-src 'self' ${ws}`);
}

// Denies every permission (camera, notifications, geolocation…: the renderer needs none) and
// puts the CSP on every response the session receives (also the dev server's pages).
export function hardenSession(
  session: HardenableSession,
  policy: string = APP_CONTENT_SECURITY_POLICY,
): void {
  session.setPermissionRequestHandler((_contents, _permission, callback) => callback(false));
  session.setPermissionCheckHandler(() => false);
  session.webRequest.onHeadersReceived((details, callback) => {
    callback({ responseHeaders: withCsp(details.responseHeaders, policy) });
  });
}

/** `headers` with `policy` replacing any other CSP (header names compared case-blind). */
export function withCsp(
  headers: Record<string, string[]> | undefined,
  policy: string = APP_CONTENT_SECURITY_POLICY,
): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const [name, value] of Object.entries(headers ?? {})) {
    if (name.toLowerCase() !== 'content-security-policy') {
      out[name] = value;
    }
  }
  out['Content-Security-Policy'] = [policy];
  return out;
}
