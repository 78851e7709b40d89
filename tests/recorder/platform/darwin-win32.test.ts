// The macOS and Windows platforms against a fake helper and fake ffmpeg facts (they cannot run
// here): which display is recorded and how (avfoundation's screen, ddagrab's output, gdigrab's
// rectangle at negative offsets), which ffmpeg is accepted, the permission errors before capture,
// the input-hook errors with the OS's fix, and the window timeline polled from the helper.
import { describe, expect, it } from 'vitest';
import type {
  ActiveWindowResult,
  HelperDisplay,
} from '../../../src/axtree/platform/helper-protocol';
import type { CaptureDeviceSupport, FfmpegBinary } from '../../../src/infra/ffmpeg/binary';
import { parseAvfoundationDevices } from '../../../src/infra/ffmpeg/binary';
import { parseHelperDisplays } from '../../../src/axtree/platform/native-helper';
import type { DisplayInfo } from '../../../src/recorder/display-info';
import { createDarwinPlatform } from '../../../src/recorder/platform/darwin';
import { ddagrabOutputIndex, createWin32Platform } from '../../../src/recorder/platform/win32';
import { HelperWindowTracker } from '../../../src/recorder/platform/helper-windows';
import { buildCaptureArgs } from '../../../src/recorder/screen/ffmpeg-args';
import { AppError, isAppError } from '../../../src/shared/errors';
import { fakeHelperFactory } from './fake-helper';

const NO_DEVICES: CaptureDeviceSupport = {
  x11grab: false,
  avfoundation: false,
  gdigrab: false,
  ddagrab: false,
};

function ffmpegWith(devices: Partial<CaptureDeviceSupport>): FfmpegBinary {
  const captureDevices = { ...NO_DEVICES, ...devices };
  return {
    path: '/opt/ffmpeg/bin/ffmpeg',
    source: 'path',
    version: '7.1',
    ffprobePath: null,
    hasX11grab: captureDevices.x11grab,
    hasLibx264: true,
    captureDevices,
  };
}

const noAccessibility = () => {
  throw new Error('not used');
};

/** A Retina laptop (primary, 2x) and a 1x monitor left of and above it. */
const MAC_DISPLAYS: HelperDisplay[] = [
  { id: '1', bounds: { x: 0, y: 0, width: 3024, height: 1964 }, scale: 2, primary: true },
  {
    id: '4',
    bounds: { x: -2560, y: -1440, width: 2560, height: 1440 },
    scale: 1,
    primary: false,
    name: 'LG UltraFine',
  },
];

const AVF_LIST = parseAvfoundationDevices(
  [
    '[AVFoundation indev @ 0x1] AVFoundation video devices:',
    '[AVFoundation indev @ 0x1] [0] FaceTime HD Camera',
    '[AVFoundation indev @ 0x1] [1] Capture screen 0',
    '[AVFoundation indev @ 0x1] [2] Capture screen 1',
    '[AVFoundation indev @ 0x1] AVFoundation audio devices:',
  ].join('\n'),
);

function darwin(
  script: Parameters<typeof fakeHelperFactory>[0],
  ffmpeg = ffmpegWith({ avfoundation: true }),
) {
  const fake = fakeHelperFactory(script);
  const listed: string[] = [];
  const platform = createDarwinPlatform({
    helper: fake.factory,
    accessibility: noAccessibility,
    resolveFfmpeg: () => Promise.resolve(ffmpeg),
    listDevices: (path) => {
      listed.push(path);
      return Promise.resolve(AVF_LIST);
    },
  });
  return { platform, log: fake.log, listed };
}

async function rejection(promise: Promise<unknown>): Promise<AppError> {
  let error: unknown = null;
  try {
    await promise;
  } catch (e) {
    error = e;
  }
  expect(error).toBeInstanceOf(AppError);
  return error as AppError;
}

describe('macOS platform', () => {
  it('records the primary display through avfoundation, in physical pixels', async () => {
    const { platform, log, listed } = darwin({ displays: () => MAC_DISPLAYS });
    const display = await platform.capture.readDisplay({});
    expect(display).toMatchObject({
      display: '1',
      width: 3024,
      height: 1964,
      scale: 2,
      origin: { x: 0, y: 0 },
    });
    expect(display.monitors).toEqual([
      { x: 0, y: 0, width: 3024, height: 1964, primary: true, name: '1' },
      { x: -2560, y: -1440, width: 2560, height: 1440, primary: false, name: 'LG UltraFine' },
    ]);
    // the helper was started for the question and stopped after it
    expect(log.calls).toEqual(['start', 'displays', 'stop']);
    expect(log.running).toBe(0);
    expect(listed).toEqual(['/opt/ffmpeg/bin/ffmpeg']);
    const source = platform.capture.source(display);
    expect(source).toEqual({ kind: 'avfoundation', screen: 0 });
    expect(buildCaptureArgs({ source, outputPath: 'o.mp4' })).toContain('Capture screen 0:none');
    expect(platform.capture.device).toBe('avfoundation');
  });

  it('records the display CUA_CAPTURE_DISPLAY names (id, name or position)', async () => {
    const { platform } = darwin({ displays: () => MAC_DISPLAYS });
    for (const wanted of ['4', 'LG UltraFine', '1']) {
      const display = await platform.capture.readDisplay({ CUA_CAPTURE_DISPLAY: wanted });
      // '1' is an id here (the primary's), which wins over the position
      const isSecond = wanted !== '1';
      expect(display.display).toBe(isSecond ? '4' : '1');
      expect(platform.capture.source(display)).toEqual({
        kind: 'avfoundation',
        screen: isSecond ? 1 : 0,
      });
    }
    const unknown = await rejection(platform.capture.readDisplay({ CUA_CAPTURE_DISPLAY: 'TV' }));
    expect(unknown.code).toBe('INVALID_PAYLOAD');
    expect(unknown.message).toContain("CUA_CAPTURE_DISPLAY='TV' names no display");
    expect(unknown.message).toContain('1: 4 (LG UltraFine)');
  });

  it("finds a display's avfoundation screen from listIndex, whatever the helper's order", async () => {
    // the helper lists the primary first, then by position; CoreGraphics has its own order
    const three: HelperDisplay[] = [
      { ...MAC_DISPLAYS[0]!, listIndex: 0 },
      { ...MAC_DISPLAYS[1]!, listIndex: 1 },
      {
        id: '9',
        bounds: { x: 3024, y: 0, width: 1920, height: 1080 },
        scale: 1,
        primary: false,
        listIndex: 2,
      },
    ];
    const { platform } = darwin({ displays: () => [three[0]!, three[2]!, three[1]!] });
    const display = await platform.capture.readDisplay({ CUA_CAPTURE_DISPLAY: '4' });
    expect(platform.capture.source(display)).toEqual({ kind: 'avfoundation', screen: 1 });
    // ffmpeg lists screens 0 and 1 only (AVF_LIST): screen 2 is refused with the likely cause
    const error = await rejection(platform.capture.readDisplay({ CUA_CAPTURE_DISPLAY: '9' }));
    expect(error.code).toBe('FFMPEG_FAILED');
    expect(error.message).toBe(
      "ffmpeg's avfoundation lists 2 screen(s) (Capture screen 0, Capture screen 1), but " +
        'display 9 is Capture screen 2.',
    );
    expect(error.fix).toContain('Screen Recording');

    // without listIndex, a third display cannot be placed: refused, not guessed
    const unknown = darwin({ displays: () => three.map(({ listIndex: _, ...d }) => d) });
    const guess = await rejection(
      unknown.platform.capture.readDisplay({ CUA_CAPTURE_DISPLAY: '9' }),
    );
    expect(guess.message).toContain('does not report its place');
    // the main display is always Capture screen 0
    const main = await unknown.platform.capture.readDisplay({});
    expect(unknown.platform.capture.source(main)).toEqual({ kind: 'avfoundation', screen: 0 });
  });

  it('refuses source() of a display it never read', () => {
    const { platform } = darwin({ displays: () => MAC_DISPLAYS });
    expect(() =>
      platform.capture.source({
        display: '77',
        width: 1,
        height: 1,
        scale: 1,
        monitors: [],
        vendor: null,
      }),
    ).toThrow(/call readDisplay\(\) first/);
  });

  it('accepts only an ffmpeg with avfoundation', async () => {
    const { platform } = darwin({}, ffmpegWith({ x11grab: true }));
    const error = await rejection(platform.capture.resolveFfmpeg({}));
    expect(error.code).toBe('FFMPEG_NOT_FOUND');
    expect(error.message).toContain('has no avfoundation input device');
    expect(error.fix).toContain('brew install ffmpeg');
    const ok = darwin({});
    expect((await ok.platform.capture.resolveFfmpeg({})).captureDevices.avfoundation).toBe(true);
  });

  it('refuses to start without Screen Recording, Accessibility or Input Monitoring', async () => {
    const granted = darwin({
      permissions: () => ({
        accessibility: 'granted',
        screenRecording: 'granted',
        inputMonitoring: 'unknown',
      }),
    });
    await expect(granted.platform.preflight?.({})).resolves.toBeUndefined();
    expect(granted.log.calls).toEqual(['start', 'permissions', 'stop']);

    const denied = darwin({
      permissions: () => ({
        accessibility: 'denied',
        screenRecording: 'denied',
        inputMonitoring: 'granted',
      }),
    });
    const error = await rejection(denied.platform.preflight!({}));
    expect(error.code).toBe('PERMISSION_DENIED');
    // Screen Recording first: without it the video shows only the desktop background
    expect(error.message).toContain('has not granted Screen Recording');
    expect(error.message).toContain('desktop background');
    expect(error.message).toContain('Also denied: Accessibility.');
    expect(error.details).toMatchObject({
      permission: 'screenRecording',
      denied: ['screenRecording', 'accessibility'],
      paneUrl: 'x-apple.systempreferences:com.apple.preference.security?Privacy_ScreenCapture',
    });
    expect(error.fix).toBe(
      'Open System Settings → Privacy & Security → Screen Recording, switch on the app that ' +
        'runs the recorder (Terminal, or cua-annotator) (and do the same under Accessibility), ' +
        'then quit it and start it again (macOS applies the change on the next launch).',
    );
    expect(denied.log.running).toBe(0);

    const keys = darwin({
      permissions: () => ({
        accessibility: 'granted',
        screenRecording: 'granted',
        inputMonitoring: 'denied',
      }),
    });
    const noKeys = await rejection(keys.platform.preflight!({}));
    expect(noKeys.fix).toContain('Privacy & Security → Input Monitoring');
    expect(noKeys.message).toContain('keystrokes would not reach the recorder');
  });

  it('a helper that cannot start stops recording before capture, and is stopped', async () => {
    const broken = darwin({ startError: new AppError('HELPER_START_TIMEOUT', 'no hello') });
    expect((await rejection(broken.platform.preflight!({}))).code).toBe('HELPER_START_TIMEOUT');
    expect(broken.log.calls).toEqual(['start', 'stop']);
  });

  it('explains a blocked input hook with the pane that unblocks it', () => {
    const { platform } = darwin({});
    const hookError = new AppError(
      'INPUT_HOOK_UNAVAILABLE',
      'The input-hook child exited before its hook ran (exit code 2). Its stderr: uIOhook.start failed: Failed to enable access for assistive devices. uiohook fails like this when the X display or its RECORD extension is missing.',
      {
        exitCode: 2,
        stderr: 'uIOhook.start failed: Failed to enable access for assistive devices.',
      },
    );
    const explained = platform.explainStartFailure!(hookError);
    expect(explained.code).toBe('INPUT_HOOK_UNAVAILABLE');
    expect(explained.message).toContain('no Accessibility permission');
    expect(explained.message).toContain('Nothing was recorded.');
    expect(explained.fix).toContain('Privacy & Security → Accessibility');
    expect(explained.details).toMatchObject({ os: 'darwin', blocked: true, exitCode: 2 });

    const tap = platform.explainStartFailure!(
      new AppError('INPUT_HOOK_UNAVAILABLE', 'exited', {
        stderr: 'uIOhook.start failed: Failed to create apple event port.',
      }),
    );
    expect(tap.fix).toContain('Input Monitoring and Accessibility');

    // an unknown hook failure loses the X11 hint and gets the macOS places to look
    const other = platform.explainStartFailure!(
      new AppError(
        'INPUT_HOOK_UNAVAILABLE',
        'exited (signal SIGABRT). uiohook fails like this when the X display or its RECORD extension is missing.',
      ),
    );
    expect(other.message).not.toContain('X display');
    expect(other.fix).toContain('Input Monitoring');

    // anything else passes unchanged
    const ffmpegError = new AppError('FFMPEG_FAILED', 'boom');
    expect(platform.explainStartFailure!(ffmpegError)).toBe(ffmpegError);
  });
});

/** A primary 150 % 4K monitor and a 100 % one left of and above it (physical pixels). */
const WIN_DISPLAYS: HelperDisplay[] = [
  {
    id: '\\\\.\\DISPLAY1',
    bounds: { x: 0, y: 0, width: 3840, height: 2160 },
    scale: 1.5,
    primary: true,
  },
  {
    id: '\\\\.\\DISPLAY2',
    bounds: { x: -1920, y: -1080, width: 1920, height: 1080 },
    scale: 1,
    primary: false,
    name: 'DELL P2419H',
  },
];

function win32(devices: Partial<CaptureDeviceSupport>, displays = WIN_DISPLAYS) {
  const fake = fakeHelperFactory({ displays: () => displays });
  return {
    platform: createWin32Platform({
      helper: fake.factory,
      accessibility: noAccessibility,
      resolveFfmpeg: () => Promise.resolve(ffmpegWith(devices)),
    }),
    log: fake.log,
  };
}

describe('Windows platform', () => {
  it('maps \\\\.\\DISPLAYn to ddagrab output n-1', () => {
    expect(ddagrabOutputIndex(WIN_DISPLAYS[0]!)).toBe(0);
    expect(ddagrabOutputIndex(WIN_DISPLAYS[1]!)).toBe(1);
    expect(ddagrabOutputIndex({ ...WIN_DISPLAYS[0]!, id: 'MONITOR-7' })).toBeNull();
  });

  it('records a monitor with ddagrab when ffmpeg has it', async () => {
    const { platform } = win32({ gdigrab: true, ddagrab: true });
    await platform.capture.resolveFfmpeg({});
    expect(platform.capture.device).toBe('ddagrab');
    const display = await platform.capture.readDisplay({ CUA_CAPTURE_DISPLAY: 'DELL P2419H' });
    expect(display).toMatchObject({
      display: '\\\\.\\DISPLAY2',
      width: 1920,
      height: 1080,
      origin: { x: -1920, y: -1080 },
    });
    expect(platform.capture.source(display)).toEqual({ kind: 'ddagrab', outputIndex: 1 });
    const primary = await platform.capture.readDisplay({});
    expect(primary).toMatchObject({ width: 3840, height: 2160, scale: 1.5 });
    expect(platform.capture.source(primary)).toEqual({ kind: 'ddagrab', outputIndex: 0 });
  });

  it('falls back to gdigrab on the monitor rectangle, at negative offsets', async () => {
    const { platform } = win32({ gdigrab: true });
    await platform.capture.resolveFfmpeg({});
    expect(platform.capture.device).toBe('gdigrab');
    const display = await platform.capture.readDisplay({ CUA_CAPTURE_DISPLAY: '1' });
    const source = platform.capture.source(display);
    expect(source).toEqual({
      kind: 'gdigrab',
      region: { x: -1920, y: -1080, width: 1920, height: 1080 },
    });
    const args = buildCaptureArgs({ source, outputPath: 'w.mp4' });
    expect(args.slice(args.indexOf('-offset_x'), args.indexOf('-i') + 2)).toEqual([
      '-offset_x',
      '-1920',
      '-offset_y',
      '-1080',
      '-video_size',
      '1920x1080',
      '-i',
      'desktop',
    ]);
  });

  it('uses gdigrab for a monitor without a DXGI index, or when CUA_WINDOWS_CAPTURE says so', async () => {
    const odd = win32({ gdigrab: true, ddagrab: true }, [{ ...WIN_DISPLAYS[0]!, id: 'MONITOR-7' }]);
    await odd.platform.capture.resolveFfmpeg({});
    const display = await odd.platform.capture.readDisplay({});
    expect(odd.platform.capture.source(display).kind).toBe('gdigrab');

    const forced = win32({ gdigrab: true, ddagrab: true });
    await forced.platform.capture.resolveFfmpeg({ CUA_WINDOWS_CAPTURE: 'gdigrab' });
    expect(forced.platform.capture.device).toBe('gdigrab');
    const bad = await rejection(
      forced.platform.capture.resolveFfmpeg({ CUA_WINDOWS_CAPTURE: 'x' }),
    );
    expect(bad.code).toBe('INVALID_PAYLOAD');
  });

  it('refuses an ffmpeg that cannot capture the Windows screen', async () => {
    const none = await rejection(win32({ x11grab: true }).platform.capture.resolveFfmpeg({}));
    expect(none.code).toBe('FFMPEG_NOT_FOUND');
    expect(none.message).toContain('neither the ddagrab filter nor the gdigrab device');
    expect(none.fix).toContain('winget install Gyan.FFmpeg');
    const noDda = await rejection(
      win32({ gdigrab: true }).platform.capture.resolveFfmpeg({ CUA_WINDOWS_CAPTURE: 'ddagrab' }),
    );
    expect(noDda.message).toContain('no ddagrab filter');
  });

  it('explains a hook Windows refused under a secure desktop', () => {
    const { platform } = win32({ gdigrab: true });
    const explained = platform.explainStartFailure!(
      new AppError('INPUT_HOOK_UNAVAILABLE', 'exited (exit code 2)', {
        stderr: 'uIOhook.start failed: Failed to register low level windows hook.',
      }),
    );
    expect(explained.message).toContain('secure desktop');
    expect(explained.fix).toContain('UAC prompt');
    expect('preflight' in platform).toBe(false);
  });
});

describe('window timeline from the helper', () => {
  it('records activations and title changes, polled, then stops the helper', async () => {
    let answer: ActiveWindowResult | null = {
      title: 'Inbox',
      app: 'Mail',
      pid: 10,
      bounds: { x: -1920, y: 0, width: 1200, height: 800 },
      windowId: '55',
    };
    const fake = fakeHelperFactory({ activeWindow: () => answer });
    let t = 0;
    const tracker = new HelperWindowTracker({
      helper: fake.factory({ env: {}, now: () => t }),
      now: () => t,
      pollIntervalMs: 5,
    });
    const seen: string[] = [];
    tracker.onChange((e) => seen.push(`${e.change}:${e.title ?? '-'}`));
    const first = await tracker.start();
    expect(first).toMatchObject({
      change: 'initial',
      windowId: '55',
      title: 'Inbox',
      app: 'Mail',
      pid: 10,
      bounds: { x: -1920, y: 0, width: 1200, height: 800 },
    });
    const waitFor = async (n: number) => {
      for (let i = 0; i < 200 && seen.length < n; i += 1) {
        await new Promise((r) => setTimeout(r, 5));
      }
    };
    t = 100;
    answer = { ...answer, title: 'Inbox (1)' };
    await waitFor(1);
    t = 200;
    answer = null;
    await waitFor(2);
    t = 300;
    answer = {
      title: 'Terminal',
      app: 'Terminal',
      pid: 11,
      bounds: { x: 0, y: 0, width: 8, height: 6 },
    };
    await waitFor(3);
    await tracker.stop();
    expect(seen).toEqual(['title:Inbox (1)', 'activated:-', 'activated:Terminal']);
    // a window without an id is keyed by process and app
    expect(tracker.timeline().at(-1)?.windowId).toBe('11:Terminal');
    expect(tracker.timeline().map((e) => e.tMs)).toEqual([0, 100, 200, 300]);
    expect(fake.log.running).toBe(0);
  });

  it('fails to start with ACTIVE_WINDOW_UNAVAILABLE and leaves no helper running', async () => {
    const fake = fakeHelperFactory({});
    const tracker = new HelperWindowTracker({
      helper: fake.factory({ env: {}, now: () => 0 }),
      now: () => 0,
    });
    const error = await rejection(tracker.start());
    expect(isAppError(error, 'ACTIVE_WINDOW_UNAVAILABLE')).toBe(true);
    expect(fake.log.running).toBe(0);
  });
});

describe('listIndex on the wire', () => {
  it('is kept by the helper client and checked', () => {
    const base = { id: '1', bounds: { x: 0, y: 0, width: 10, height: 10 }, scale: 2 };
    expect(parseHelperDisplays([{ ...base, primary: true, listIndex: 0 }])).toEqual([
      { ...base, primary: true, listIndex: 0 },
    ]);
    expect(parseHelperDisplays([{ ...base, primary: true }])[0]).not.toHaveProperty('listIndex');
    expect(() => parseHelperDisplays([{ ...base, primary: true, listIndex: -1 }])).toThrow(
      /listIndex/,
    );
  });
});

describe('display changes through the helper', () => {
  it('a moved monitor is reported once, and the next segment captures it there', async () => {
    let layout = WIN_DISPLAYS;
    const fake = fakeHelperFactory({ displays: () => layout });
    const platform = createWin32Platform({
      helper: fake.factory,
      accessibility: noAccessibility,
      resolveFfmpeg: () => Promise.resolve(ffmpegWith({ gdigrab: true })),
    });
    const env = { CUA_CAPTURE_DISPLAY: 'DELL P2419H' };
    await platform.capture.resolveFfmpeg(env);
    const first = await platform.capture.readDisplay(env);
    const watcher = platform.displays!({ env, now: () => 0 });
    const changes: string[] = [];
    const seen: DisplayInfo[] = [];
    watcher.onChange((next) => {
      seen.push(next);
      changes.push(`${next.origin?.x},${next.origin?.y}`);
    });
    watcher.start(first);
    // an event with nothing changed for the recorded display: no change
    fake.log.emitDisplays(layout);
    await new Promise((r) => setTimeout(r, 400));
    expect(changes).toEqual([]);
    // the monitor moves from left-above to the right of the primary
    layout = [
      WIN_DISPLAYS[0]!,
      { ...WIN_DISPLAYS[1]!, bounds: { x: 3840, y: 0, width: 1920, height: 1080 } },
    ];
    fake.log.emitDisplays(layout);
    fake.log.emitDisplays(layout);
    await new Promise((r) => setTimeout(r, 400));
    expect(changes).toEqual(['3840,0']);
    // source() of the display the watcher reported captures the new rectangle
    expect(platform.capture.source(seen[0]!)).toEqual({
      kind: 'gdigrab',
      region: { x: 3840, y: 0, width: 1920, height: 1080 },
    });
    await watcher.stop();
    expect(fake.log.running).toBe(0);
  });

  it('macOS input is in points, Windows input in pixels', () => {
    expect(darwin({}).platform.inputUnit).toBe('points');
    expect(win32({}).platform.inputUnit).toBeUndefined();
  });
});
