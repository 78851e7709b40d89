// Every window: isolated, sandboxed, no Node, web security on; window.open, navigation off the
// app's origin, webviews and permissions refused; the CSP on every response.
import type { BrowserWindow, BrowserWindowConstructorOptions } from 'electron';
import { describe, expect, it, vi } from 'vitest';
import { createHudWindow, createMainWindow, hudUrl, recordPageUrl } from '../../src/main/windows';
import {
  APP_CONTENT_SECURITY_POLICY,
  devContentSecurityPolicy,
  hardenSession,
  hardenWebContents,
  isAppUrl,
  secureWebPreferences,
  withCsp,
  type HardenableSession,
  type HardenableWebContents,
} from '../../src/main/window-security';

type Listener = (...args: unknown[]) => void;

/** A fake WebContents keeping its listeners and window-open handler. */
function fakeContents() {
  const listeners = new Map<string, Listener[]>();
  let openHandler: ((details: { url: string }) => { action: string }) | null = null;
  const contents = {
    on: (name: string, listener: Listener) => {
      listeners.set(name, [...(listeners.get(name) ?? []), listener]);
      return contents;
    },
    setWindowOpenHandler: (handler: (details: { url: string }) => { action: string }) => {
      openHandler = handler;
    },
    emit: (name: string, ...args: unknown[]) => {
      for (const l of listeners.get(name) ?? []) {
        l(...args);
      }
    },
    open: (url: string) => openHandler?.({ url }),
  };
  return contents;
}

function navigate(contents: ReturnType<typeof fakeContents>, name: string, url: string): boolean {
  const event = { preventDefault: vi.fn(), url };
  contents.emit(name, event, url);
  return event.preventDefault.mock.calls.length === 0;
}

/** A fake BrowserWindow class recording what it was made with and asked. */
function fakeWindowClass() {
  const made: FakeWindow[] = [];
  class FakeWindow {
    readonly webContents = fakeContents();
    readonly calls: [string, unknown[]][] = [];
    constructor(readonly options: BrowserWindowConstructorOptions) {
      made.push(this);
    }
    private record(name: string, args: unknown[]) {
      this.calls.push([name, args]);
    }
    once(...args: unknown[]) {
      this.record('once', args);
    }
    loadURL(...args: unknown[]) {
      this.record('loadURL', args);
      return Promise.resolve();
    }
    setAlwaysOnTop(...args: unknown[]) {
      this.record('setAlwaysOnTop', args);
    }
    setVisibleOnAllWorkspaces(...args: unknown[]) {
      this.record('setVisibleOnAllWorkspaces', args);
    }
    setContentProtection(...args: unknown[]) {
      this.record('setContentProtection', args);
    }
  }
  return {
    Window: FakeWindow as unknown as new (o: BrowserWindowConstructorOptions) => BrowserWindow,
    made,
  };
}

const options = {
  preloadPath: '/app/out/preload/index.cjs',
  hudPreloadPath: '/app/out/preload/hud.cjs',
  pageUrl: 'cua-app://app/index.html',
  appOrigin: 'cua-app://app',
};

describe('window security', () => {
  it('gives every window isolation, the sandbox, no Node integration and web security', () => {
    const { Window, made } = fakeWindowClass();
    createMainWindow(Window, options);
    createHudWindow(Window, { ...options, platform: 'linux' });
    expect(made).toHaveLength(2);
    for (const [i, win] of made.entries()) {
      const prefs = win.options.webPreferences!;
      expect(prefs).toMatchObject({
        contextIsolation: true,
        sandbox: true,
        nodeIntegration: false,
        nodeIntegrationInWorker: false,
        nodeIntegrationInSubFrames: false,
        webSecurity: true,
        allowRunningInsecureContent: false,
        webviewTag: false,
        // the HUD's preload exposes the HUD's methods only (item 37)
        preload: i === 0 ? options.preloadPath : options.hudPreloadPath,
      });
      const loaded = win.calls.filter(([n]) => n === 'loadURL').map(([, a]) => a[0] as string);
      expect(loaded).toHaveLength(1);
      expect(loaded[0]).toMatch(/^cua-app:\/\/app\/index\.html/);
    }
    expect(secureWebPreferences(options.preloadPath)).toEqual(made[0]!.options.webPreferences);
  });

  it('makes the HUD a small always-on-top window on the #/hud route, content-protected on win32/darwin', () => {
    for (const platform of ['linux', 'win32', 'darwin'] as const) {
      const { Window, made } = fakeWindowClass();
      createHudWindow(Window, { ...options, platform });
      const hud = made[0]!;
      expect(hud.options).toMatchObject({ frame: false, alwaysOnTop: true, show: false });
      expect(hud.options.skipTaskbar).toBe(true);
      expect(hud.calls).toContainEqual(['loadURL', ['cua-app://app/index.html#/hud']]);
      expect(hud.calls.some(([n]) => n === 'setVisibleOnAllWorkspaces')).toBe(true);
      const isProtected = hud.calls.some(([n, a]) => n === 'setContentProtection' && a[0] === true);
      expect(isProtected).toBe(platform !== 'linux');
    }
    expect(hudUrl('cua-app://app/index.html#/record')).toBe('cua-app://app/index.html#/hud');
    expect(recordPageUrl('cua-app://app/index.html')).toBe('cua-app://app/index.html#/record');
  });

  it('denies window.open and navigation away from the app origin', () => {
    const { Window, made } = fakeWindowClass();
    createMainWindow(Window, options);
    const contents = (made[0] as unknown as { webContents: ReturnType<typeof fakeContents> })
      .webContents;
    expect(contents.open('https://evil.example/')).toEqual({ action: 'deny' });
    expect(contents.open('cua-app://app/index.html')).toEqual({ action: 'deny' });
    for (const name of ['will-navigate', 'will-redirect']) {
      expect(navigate(contents, name, 'https://evil.example/')).toBe(false);
      expect(navigate(contents, name, 'file:///etc/passwd')).toBe(false);
      expect(navigate(contents, name, 'cua-app://app.evil.example/')).toBe(false);
      expect(navigate(contents, name, 'cua-media://media/x/video')).toBe(false);
      expect(navigate(contents, name, 'javascript:alert(1)')).toBe(false);
      expect(navigate(contents, name, 'cua-app://app/index.html#/record')).toBe(true);
    }
    expect(navigate(contents, 'will-frame-navigate', 'https://evil.example/')).toBe(false);
    const webview = { preventDefault: vi.fn() };
    contents.emit('will-attach-webview', webview, {}, { src: 'https://evil.example/' });
    expect(webview.preventDefault).toHaveBeenCalled();
  });

  it('reports what it refused', () => {
    const contents = fakeContents();
    const refused: string[] = [];
    hardenWebContents(contents as unknown as HardenableWebContents, {
      appOrigin: 'cua-app://app',
      onRefused: (what, url) => refused.push(`${what} ${url}`),
    });
    contents.open('https://a.example/');
    navigate(contents, 'will-navigate', 'https://b.example/');
    expect(refused).toEqual(['window-open https://a.example/', 'navigation https://b.example/']);
  });

  it('denies permissions and sets the CSP on every response', () => {
    let request: ((c: unknown, p: string, cb: (ok: boolean) => void) => void) | null = null;
    let check: (() => boolean) | null = null;
    let headers: ((d: unknown, cb: (r: unknown) => void) => void) | null = null;
    const session = {
      setPermissionRequestHandler: (h: typeof request) => (request = h),
      setPermissionCheckHandler: (h: typeof check) => (check = h),
      webRequest: { onHeadersReceived: (h: typeof headers) => (headers = h) },
    } as unknown as HardenableSession;
    hardenSession(session);
    const granted: boolean[] = [];
    request!(null, 'media', (ok) => granted.push(ok));
    request!(null, 'notifications', (ok) => granted.push(ok));
    expect(granted).toEqual([false, false]);
    expect(check!()).toBe(false);
    let answer: unknown;
    headers!(
      { responseHeaders: { 'content-security-policy': ['default-src *'], 'X-A': ['1'] } },
      (r) => (answer = r),
    );
    expect(answer).toEqual({
      responseHeaders: { 'X-A': ['1'], 'Content-Security-Policy': [APP_CONTENT_SECURITY_POLICY] },
    });
  });

  it('has a strict CSP: no inline or remote scripts, no framing, no plugins', () => {
    const directives = Object.fromEntries(
      APP_CONTENT_SECURITY_POLICY.split('; ').map((d) => [d.split(' ')[0], d]),
    );
    expect(directives['default-src']).toBe("default-src 'none'");
    expect(directives['script-src']).toBe("script-src 'self'");
    expect(directives['object-src']).toBe("object-src 'none'");
    expect(directives['frame-ancestors']).toBe("frame-ancestors 'none'");
    expect(directives['media-src']).toContain('cua-media://media');
    expect(APP_CONTENT_SECURITY_POLICY).not.toMatch(/unsafe-eval|\*|http:|https:/);
    expect(devContentSecurityPolicy('http://localhost:5173')).toContain('ws://localhost:5173');
    expect(withCsp(undefined)).toEqual({
      'Content-Security-Policy': [APP_CONTENT_SECURITY_POLICY],
    });
    expect(isAppUrl('CUA-APP://APP/x', 'cua-app://app')).toBe(true);
    expect(isAppUrl('cua-app://app:8080/x', 'cua-app://app')).toBe(false);
  });
});
