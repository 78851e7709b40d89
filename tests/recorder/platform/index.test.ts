// Platform choice in one place: createPlatform gives Linux's real capture backend, AT-SPI adapter
// and X11 window tracker; macOS and Windows their helper-based parts (tested with fakes in
// darwin-win32.test.ts); anything else gets PLATFORM_UNSUPPORTED with a fix. The recording
// session and the composition root take whatever platform they are given.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AtspiAdapter } from '../../../src/axtree/platform/linux/atspi-adapter';
import { readDisplayInfo } from '../../../src/recorder/display-info';
import { createPlatform, type RecorderPlatform } from '../../../src/recorder/platform';
import {
  RecordingSession,
  type RecordingSink,
  type SessionMark,
} from '../../../src/recorder/session';
import {
  ActiveWindowTracker,
  type ActiveWindowEntry,
} from '../../../src/recorder/windows/active-window';
import { createServices } from '../../../src/services/create-services';
import { AppError, isAppError } from '../../../src/shared/errors';
import { startDesktop, type Desktop } from '../../helpers/desktop';
import { tempLibrary } from '../../helpers/library';

const now = () => 0;

describe('createPlatform', () => {
  it('linux: x11grab capture, AT-SPI accessibility, the X11 active-window tracker', () => {
    const p = createPlatform('linux');
    expect(p.os).toBe('linux');
    expect(p.capture.device).toBe('x11grab');
    expect(p.accessibilityApi).toBe('atspi');
    expect(p.accessibility({ now, env: {} })).toBeInstanceOf(AtspiAdapter);
    expect(p.windows({ now, env: {} })).toBeInstanceOf(ActiveWindowTracker);
    expect(
      p.capture.source({
        display: ':7',
        width: 800,
        height: 600,
        scale: 1,
        monitors: [],
        vendor: 'x',
      }),
    ).toEqual({ kind: 'x11grab', display: ':7' });
  });

  it('linux: the capture backend finds an ffmpeg with x11grab', async () => {
    const ffmpeg = await createPlatform('linux').capture.resolveFfmpeg(process.env);
    expect(ffmpeg.hasX11grab).toBe(true);
  });

  it('darwin and win32: capture through ffmpeg, the rest through the accessibility helper', () => {
    const mac = createPlatform('darwin');
    expect(mac.os).toBe('darwin');
    expect(mac.capture.device).toBe('avfoundation');
    expect(mac.accessibilityApi).toBe('macos-ax (helper)');
    expect(typeof mac.preflight).toBe('function');
    expect(typeof mac.explainStartFailure).toBe('function');
    const win = createPlatform('win32');
    expect(win.os).toBe('win32');
    // gdigrab until the resolved ffmpeg shows ddagrab
    expect(win.capture.device).toBe('gdigrab');
    expect(win.accessibilityApi).toBe('windows-uia (helper)');
    expect(typeof win.explainStartFailure).toBe('function');
  });

  it('anything else: PLATFORM_UNSUPPORTED with a fix', () => {
    let error: unknown;
    try {
      createPlatform('freebsd');
    } catch (e) {
      error = e;
    }
    expect(isAppError(error, 'PLATFORM_UNSUPPORTED')).toBe(true);
    const e = error as AppError;
    expect(e.message).toMatch(/freebsd is not supported/);
    expect(e.details).toEqual({ platform: 'freebsd' });
    expect(e.fix).toMatch(/Record on Linux \(X11\), macOS or Windows/);
  });
});

describe('a fake platform is what the session and the services use', { timeout: 60_000 }, () => {
  let desktop: Desktop;
  const dirs: string[] = [];
  beforeAll(async () => {
    desktop = await startDesktop();
  }, 60_000);
  afterAll(async () => {
    await desktop?.stop();
    for (const d of dirs) {
      fs.rmSync(d, { recursive: true, force: true });
    }
  });

  it("the session records from the platform's capture source and window tracker", async () => {
    const linux = createPlatform('linux');
    const sources: string[] = [];
    const calls: string[] = [];
    const entry: ActiveWindowEntry = {
      tMs: 1,
      change: 'initial',
      windowId: '0xfake',
      title: 'Fake window',
      app: 'fake',
      appInstance: 'fake',
      pid: null,
      bounds: null,
    };
    const platform: Pick<RecorderPlatform, 'capture' | 'windows'> = {
      capture: {
        ...linux.capture,
        source: (display) => {
          sources.push(display.display);
          return linux.capture.source(display);
        },
      },
      windows: () => ({
        start: () => {
          calls.push('start');
          return Promise.resolve(entry);
        },
        onChange: () => () => undefined,
        timeline: () => [entry],
        stop: () => {
          calls.push('stop');
          return Promise.resolve();
        },
      }),
    };
    const windows: ActiveWindowEntry[] = [];
    const marks: SessionMark[] = [];
    const sink: RecordingSink = {
      events: () => undefined,
      window: (w) => windows.push(w),
      element: () => undefined,
      snapshot: () => undefined,
      mark: (m) => marks.push(m),
      segmentStarted: () => undefined,
    };
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cua-platform-session-'));
    dirs.push(dir);
    const display = await readDisplayInfo(desktop.env);
    const session = new RecordingSession({
      outputDir: dir,
      display,
      platform,
      ffmpegPath: (await linux.capture.resolveFfmpeg(desktop.env)).path,
      fps: 5,
      accessibility: null,
      sink,
      env: desktop.env,
      inputHookOptions: { shouldCheckPreconditions: false },
    });
    await session.start();
    await new Promise((r) => setTimeout(r, 500));
    const result = await session.stop();
    expect(result.state, JSON.stringify(result.error)).toBe('done');
    expect(sources).toEqual([display.display]);
    expect(calls).toEqual(['start', 'stop']);
    expect(windows).toEqual([entry]);
    expect(result.segments).toHaveLength(1);
    expect(fs.statSync(result.segments[0]!.path).size).toBeGreaterThan(0);
  });

  it('createServices records with the platform it was given', async () => {
    const t = tempLibrary();
    try {
      const refused = new AppError('PLATFORM_UNSUPPORTED', 'fake platform: no display here');
      const linux = createPlatform('linux');
      const services = createServices(t.lib, {
        appVersion: 'test',
        platform: {
          ...linux,
          capture: { ...linux.capture, readDisplay: () => Promise.reject(refused) },
        },
      });
      expect(services.platform().capture.device).toBe('x11grab');
      const e = await services.record({ task: 'demo', env: desktop.env }).catch((x: unknown) => x);
      expect(e).toBe(refused);
      await services.close();
    } finally {
      t.cleanup();
    }
  });

  it('close() stops a recording under way and waits until it is saved', async () => {
    const t = tempLibrary();
    try {
      const services = createServices(t.lib, {
        appVersion: 'test',
        platform: createPlatform('linux'),
      });
      const closed: Promise<void>[] = [];
      const result = await services.record({
        task: 'stopped by close',
        env: desktop.env,
        fps: 5,
        noA11y: true,
        onStarted: () => {
          setTimeout(() => {
            closed.push(services.close());
          }, 300);
        },
      });
      expect(closed).toHaveLength(1);
      await closed[0];
      expect(services.closed).toBe(true);
      expect(result.status).toBe('complete');
      expect(result.frames).toBeGreaterThan(0);
      expect(result.error).toBeNull();
      const row = t.lib.db.prepare('SELECT status FROM recordings WHERE id = ?').get(result.id);
      expect(row).toEqual({ status: 'complete' });
    } finally {
      t.cleanup();
    }
  });
});
