// The Windows side under Wine (Debian's wine64 8.0, Windows Node 20, koffi's win32-x64 build) on
// Xvfb, for real (docs/packaging.md §10): the Windows accessibility helper bundle
// (out/node/ax-helper-win32.js) speaks protocol v2, initialises COM, answers activeWindow with a
// real Wine window (notepad) and displays with the Xvfb screen, and exits on stdin EOF, also
// through the recorder's own client; the recorder's input hook child (uiohook-napi's win32-x64
// prebuild) reports input injected with xdotool; a Windows ffmpeg captures the desktop with
// gdigrab. UI Automation itself is not in Wine 8 (CoCreateInstance(CUIAutomation) is
// REGDB_E_CLASSNOTREG), so the helper runs without its UIA capabilities, as it must there.
//
// Needs the Node build (npm run build:node) and wine64 (.ci/run installs it); the Windows
// packages and the Wine prefix are made once in node_modules/.cache/cua-wine.
import { execFile, spawn } from 'node:child_process';
import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFile } from 'node:fs/promises';
import { NativeHelperAdapter } from '../../src/axtree/platform/native-helper';
import { decodePng } from '../../src/pipeline/media/png';
import { NativeHelperProcess } from '../../src/recorder/accessibility/native-helper-process';
import { parseHookLine, UIOHOOK_EVENT_TYPES } from '../../src/recorder/input/hook-protocol';
import { buildCaptureArgs, buildInputArgs } from '../../src/recorder/screen/ffmpeg-args';
import type { Desktop } from '../helpers/desktop';
import { startDesktop } from '../helpers/desktop';
import type { WindowsApp, WineSession } from '../helpers/wine';
import {
  packageClosure,
  startWine,
  WINDOWS_PACKAGES,
  windowsApp,
  windowsPackage,
  WINE,
} from '../helpers/wine';

/** Xvfb's screen (tests/setup/desktop-up.sh). */
const SCREEN = { width: 1280, height: 800 };
/** libuiohook VC codes. */
const VC_A = 30;
/** Wine under a loaded 2-core machine: a Windows Node start takes 2–20 s. */
const START_MS = 60_000;
/** Limit of each test: a start plus its work. */
const TEST_MS = 120_000;

let desktop: Desktop;
let wine: WineSession;
let app: WindowsApp;
let ffmpegExe: string;
/** The X window id of notepad. */
let notepadWindow: string;

/** A Windows Node script behind the bridge, as a child with stdio pipes, read line by line. */
type Script = {
  child: ChildProcessWithoutNullStreams;
  /** Resolves with the first stdout line (after `skip` matching earlier ones) that `match` accepts. */
  line(match: (line: string) => boolean, timeoutMs?: number): Promise<string>;
  lines: string[];
  stderr(): string;
  exit: Promise<number | null>;
};

/** Every bridge started, killed in afterAll if a failed test left it running. */
const started: ChildProcessWithoutNullStreams[] = [];

function startScript(script: string, args: readonly string[] = []): Script {
  const [command, commandArgs, options] = wine.nodeCommand(app.path(script), args);
  const child = spawn(command, commandArgs, { ...options, stdio: ['pipe', 'pipe', 'pipe'] });
  started.push(child);
  const lines: string[] = [];
  let pending = '';
  let stderr = '';
  const waiters = new Set<() => void>();
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (chunk: string) => {
    pending += chunk;
    const parts = pending.split('\n');
    pending = parts.pop()!;
    lines.push(...parts.map((l) => l.replace(/\r$/, '')).filter((l) => l !== ''));
    for (const wake of waiters) {
      wake();
    }
  });
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (chunk: string) => (stderr += chunk));
  const exit = new Promise<number | null>((resolve) => child.once('close', resolve));
  return {
    child,
    lines,
    stderr: () => stderr,
    exit,
    line: (match, timeoutMs = START_MS) =>
      new Promise((resolve, reject) => {
        const check = (): boolean => {
          const found = lines.find(match);
          if (found !== undefined) {
            waiters.delete(wake);
            clearTimeout(timer);
            resolve(found);
            return true;
          }
          return false;
        };
        const wake = (): void => {
          check();
        };
        const timer = setTimeout(() => {
          waiters.delete(wake);
          reject(
            new Error(
              `${script}: no matching line within ${timeoutMs} ms; stdout: ${lines.join('\n')}\n` +
                `stderr: ${stderr}`,
            ),
          );
        }, timeoutMs);
        if (!check()) {
          waiters.add(wake);
        }
      }),
  };
}

const response = (id: number) => (line: string) => line.startsWith(`{"id":${id},`);

beforeAll(async () => {
  desktop = await startDesktop();
  wine = await startWine({ env: desktop.env });
  [app, ffmpegExe] = await Promise.all([
    windowsApp(wine, {
      bundles: ['ax-helper-win32', 'hook-child', 'replay-driver'],
      packages: [
        'koffi',
        // the helper, hook and driver protocols' schemas (a dependency the packaged app has)
        'valibot',
        'uiohook-napi',
        'node-gyp-build',
        ...packageClosure('@nut-tree-fork/nut-js'),
      ],
      windowsPackages: [WINDOWS_PACKAGES.koffiWin32],
    }),
    (async () => path.join(await windowsPackage(WINDOWS_PACKAGES.ffmpeg), 'ffmpeg.exe'))(),
  ]);
  // notepad: a real Wine window, and it keeps the prefix's wineserver up for the other starts
  desktop.spawn(WINE, ['notepad'], { env: wine.env, stdio: 'ignore' });
  notepadWindow = (
    await desktop.run('xdotool', ['search', '--sync', '--name', 'Notepad'], START_MS)
  ).split('\n')[0]!;
  await desktop.run('xdotool', ['windowactivate', '--sync', notepadWindow], 10_000);
}, 300_000);

afterAll(async () => {
  for (const child of started) {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM'); // the bridge kills wine at once
    }
  }
  await wine?.stop();
  await desktop?.stop();
}, 60_000);

describe('the Windows accessibility helper under Wine', () => {
  it(
    'says hello (protocol 2, win32, no UI Automation), answers from Win32 and exits 0 on stdin EOF',
    async () => {
      const helper = startScript('ax-helper-win32.js');
      const requests = [
        { id: 1, method: 'displays', params: {} },
        { id: 2, method: 'activeWindow', params: {} },
        { id: 3, method: 'permissions', params: {} },
        { id: 4, method: 'elementAt', params: { x: 100, y: 100 } },
        { id: 5, method: 'noSuchMethod', params: {} },
      ];
      helper.child.stdin.write(requests.map((r) => `${JSON.stringify(r)}\n`).join(''));
      const hello = JSON.parse(await helper.line((l) => l.includes('"type":"hello"')));
      expect(hello).toMatchObject({
        type: 'hello',
        protocol: 2,
        helper: { name: 'uia-helper', os: 'win32' },
      });
      expect(hello.helper.pid).toBeGreaterThan(0);
      // Wine 8 has no UI Automation: only the plain Win32 capabilities are announced
      expect(hello.capabilities).toEqual(['activeWindow', 'displays', 'permissions']);

      const displays = JSON.parse(await helper.line(response(1)));
      expect(displays).toEqual({
        id: 1,
        ok: true,
        result: [
          {
            id: '\\\\.\\DISPLAY1',
            bounds: { x: 0, y: 0, ...SCREEN },
            scale: 1,
            primary: true,
            name: '\\\\.\\DISPLAY1',
          },
        ],
      });

      const active = JSON.parse(await helper.line(response(2)));
      expect(active.ok).toBe(true);
      expect(active.result).toMatchObject({ title: 'Untitled - Notepad', app: 'notepad' });
      expect(active.result.pid).toBeGreaterThan(0);
      expect(active.result.pid).not.toBe(hello.helper.pid);
      // Wine's window rectangle holds the frame it assumes; the X window is the client area
      const geometry = await desktop.run('xdotool', [
        'getwindowgeometry',
        '--shell',
        notepadWindow,
      ]);
      const width = Number(/WIDTH=(\d+)/.exec(geometry)![1]);
      const height = Number(/HEIGHT=(\d+)/.exec(geometry)![1]);
      expect(active.result.bounds.width).toBeGreaterThanOrEqual(width);
      expect(active.result.bounds.width).toBeLessThan(width + 40);
      expect(active.result.bounds.height).toBeGreaterThanOrEqual(height);
      expect(active.result.bounds.height).toBeLessThan(height + 80);

      expect(JSON.parse(await helper.line(response(3)))).toEqual({
        id: 3,
        ok: true,
        result: {
          accessibility: 'not-required',
          screenRecording: 'not-required',
          inputMonitoring: 'not-required',
        },
      });
      const elementAt = JSON.parse(await helper.line(response(4)));
      expect(elementAt.ok).toBe(false);
      expect(elementAt.error.code).toBe('ACCESSIBILITY_UNAVAILABLE');
      expect(elementAt.error.message).toMatch(/0x80040154 \(REGDB_E_CLASSNOTREG\)/);
      expect(JSON.parse(await helper.line(response(5))).error.code).toBe('HELPER_UNKNOWN_METHOD');

      // the bounds are the window's: when the X window moves, they move by as much
      const xy = (shell: string): { x: number; y: number } => ({
        x: Number(/X=(-?\d+)/.exec(shell)![1]),
        y: Number(/Y=(-?\d+)/.exec(shell)![1]),
      });
      const xBefore = xy(geometry);
      const before = active.result.bounds;
      await desktop.run('xdotool', [
        'windowmove',
        '--sync',
        notepadWindow,
        String(xBefore.x + 150),
        String(xBefore.y + 100),
      ]);
      const xAfter = xy(
        await desktop.run('xdotool', ['getwindowgeometry', '--shell', notepadWindow]),
      );
      expect(xAfter.x).not.toBe(xBefore.x);
      let after = before;
      for (let id = 6; id < 26 && after.x === before.x; id += 1) {
        helper.child.stdin.write(`${JSON.stringify({ id, method: 'activeWindow', params: {} })}\n`);
        after = JSON.parse(await helper.line(response(id))).result.bounds;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      expect(after.x - before.x).toBe(xAfter.x - xBefore.x);
      expect(after.y - before.y).toBe(xAfter.y - xBefore.y);
      expect({ width: after.width, height: after.height }).toEqual({
        width: before.width,
        height: before.height,
      });

      helper.child.stdin.end();
      expect(await helper.exit).toBe(0);
      const stderr = helper.stderr();
      // COM came up (CoInitializeEx as MTA succeeded): what failed is the UIA class, not COM
      expect(stderr).toMatch(
        /UI Automation unavailable: CoCreateInstance\(ff48dba4-[^)]*\) failed/,
      );
      expect(stderr).not.toMatch(/CoInitializeEx failed/);
      expect(stderr).toMatch(/exiting \(eof\)/);
    },
    TEST_MS,
  );

  it(
    "runs under the recorder's own client (NativeHelperProcess + NativeHelperAdapter)",
    async () => {
      const [command, args, options] = wine.nodeCommand(app.path('ax-helper-win32.js'));
      const adapter = new NativeHelperAdapter(
        new NativeHelperProcess({ command, args, env: options.env, stopGraceMs: 20_000 }),
        { now: () => performance.now(), startTimeoutMs: START_MS, requestTimeoutMs: 20_000 },
      );
      try {
        const info = await adapter.start();
        expect(info.capabilities).toEqual(['activeWindow', 'displays', 'permissions']);
        expect(adapter.helper).toMatchObject({ name: 'uia-helper', os: 'win32' });
        expect(await adapter.displays()).toEqual([
          expect.objectContaining({ bounds: { x: 0, y: 0, ...SCREEN }, scale: 1, primary: true }),
        ]);
        expect(await adapter.activeWindow()).toMatchObject({ title: 'Untitled - Notepad' });
      } finally {
        await adapter.stop();
      }
    },
    TEST_MS,
  );
});

describe("uiohook-napi's win32-x64 prebuild under Wine (the recorder's hook child)", () => {
  it(
    'reports a click and a key injected with xdotool into a Wine window, exits on EOF',
    async () => {
      const hook = startScript('hook-child.js', ['--heartbeat-ms', '250']);
      const hello = JSON.parse(await hook.line((l) => l.includes('"type":"hello"')));
      expect(hello.protocol).toBe(1);
      await desktop.run('xdotool', ['windowactivate', '--sync', notepadWindow], 10_000);
      await desktop.run('xdotool', ['mousemove', '200', '220', 'click', '1']);
      await desktop.run('xdotool', ['key', 'a']);
      const parsed = () =>
        hook.lines.map((l) => parseHookLine(l)).flatMap((p) => (p.ok ? [p.line] : []));
      const isKeyAUp = (l: string): boolean => {
        const parsed = parseHookLine(l);
        return (
          parsed.ok &&
          parsed.line.type === 'event' &&
          parsed.line.e.type === UIOHOOK_EVENT_TYPES.keyReleased &&
          parsed.line.e.keycode === VC_A
        );
      };
      await hook.line(isKeyAUp, 20_000);
      // every line the Windows child wrote passes the recorder's validating parser
      expect(hook.lines.map((l) => parseHookLine(l).ok)).not.toContain(false);
      const events = parsed().flatMap((l) => (l.type === 'event' ? [l.e] : []));
      expect(events).toContainEqual(
        expect.objectContaining({
          type: UIOHOOK_EVENT_TYPES.mousePressed,
          x: 200,
          y: 220,
          button: 1,
        }),
      );
      expect(events).toContainEqual(
        expect.objectContaining({ type: UIOHOOK_EVENT_TYPES.keyReleased, keycode: VC_A }),
      );
      // a heartbeat every 250 ms: waited for, since on a loaded machine the key can come first
      await hook.line((l) => {
        const p = parseHookLine(l);
        return p.ok && p.line.type === 'heartbeat';
      }, 10_000);
      expect(parsed().some((l) => l.type === 'heartbeat')).toBe(true);
      hook.child.stdin.end();
      expect(await hook.exit).toBe(0);
    },
    TEST_MS,
  );
});

describe("nut-js's libnut win32 under Wine (the replay driver child)", () => {
  it(
    'reports the screen, moves the real pointer, types into Notepad (the screen changes), saves a PNG',
    async () => {
      const driver = startScript('replay-driver.js');
      const ask = async (id: number, body: object): Promise<Record<string, unknown>> => {
        driver.child.stdin.write(`${JSON.stringify({ id, ...body })}\n`);
        const reply = JSON.parse(await driver.line(response(id))) as Record<string, unknown>;
        expect(reply.ok, JSON.stringify(reply)).toBe(true);
        return reply.value as Record<string, unknown>;
      };
      const hello = await ask(1, { op: 'hello' });
      expect(hello).toMatchObject({ width: SCREEN.width, height: SCREEN.height, version: 1 });
      await ask(2, { op: 'move', x: 300, y: 310 });
      expect(await ask(3, { op: 'pointer' })).toEqual({ x: 300, y: 310 });
      // the X server's pointer moved too: SendInput reached Wine's X11 driver
      // (Wine's X11 driver warps the pointer asynchronously: polled, as a loaded machine delays it)
      await expect
        .poll(() => desktop.run('xdotool', ['getmouselocation']), { timeout: 10_000 })
        .toMatch(/^x:300 y:310 /);
      await desktop.run('xdotool', ['windowactivate', '--sync', notepadWindow], 10_000);
      const before = (await ask(4, { op: 'grab', thumbnailWidth: 160 })) as {
        thumbnail: { width: number; height: number; data: string };
      };
      expect([before.thumbnail.width, before.thumbnail.height]).toEqual([160, 100]);
      await ask(5, { op: 'type', text: 'WWWW MMMM WWWW MMMM' });
      await ask(6, { op: 'keys', keys: ['Enter'], down: true });
      await ask(7, { op: 'keys', keys: ['Enter'], down: false });
      await new Promise((r) => setTimeout(r, 500));
      const after = (await ask(8, { op: 'grab', thumbnailWidth: 160 })) as typeof before;
      expect(after.thumbnail.data).not.toBe(before.thumbnail.data);
      const png = path.join(wine.tempDir, 'replay-grab.png');
      await ask(9, { op: 'save', path: png });
      const decoded = decodePng(await readFile(png));
      expect([decoded.width, decoded.height]).toEqual([SCREEN.width, SCREEN.height]);
      await ask(10, { op: 'quit' });
      expect(await driver.exit).toBe(0);
    },
    TEST_MS,
  );
});

describe('gdigrab capture with the Windows ffmpeg 4.1 under Wine', () => {
  it(
    "records 2 s of a monitor rectangle with the recorder's gdigrab input arguments",
    async () => {
      const output = path.join(wine.tempDir, 'gdigrab.mp4');
      const input = buildInputArgs(
        { kind: 'gdigrab', region: { x: 0, y: 0, width: 640, height: 480 } },
        10,
        true,
      );
      const run = await wine.run(
        ffmpegExe,
        [
          '-hide_banner',
          ...input,
          '-t',
          '2',
          '-r',
          '10',
          '-c:v',
          'libx264',
          '-preset',
          'ultrafast',
          '-pix_fmt',
          'yuv420p',
          wine.windowsPath(output),
        ],
        START_MS,
      );
      expect(run.code, run.stderr).toBe(0);
      expect(run.stderr).toMatch(/Input #0, gdigrab, from 'desktop'/);
      const { stdout } = await promisify(execFile)('ffprobe', [
        '-v',
        'error',
        '-count_frames',
        '-show_entries',
        'stream=codec_name,width,height,nb_read_frames',
        '-of',
        'json',
        output,
      ]);
      const [stream] = (JSON.parse(stdout) as { streams: Record<string, unknown>[] }).streams;
      expect(stream).toMatchObject({ codec_name: 'h264', width: 640, height: 480 });
      const frames = Number(stream!.nb_read_frames);
      expect(frames).toBeGreaterThanOrEqual(15);
      expect(frames).toBeLessThanOrEqual(21);
    },
    TEST_MS,
  );

  it(
    "refuses the recorder's full capture arguments: ffmpeg 4.1 has no -stats_period (4.4+)",
    async () => {
      const args = buildCaptureArgs({
        source: { kind: 'gdigrab' },
        outputPath: wine.windowsPath(path.join(wine.tempDir, 'full.mp4')),
        fps: 10,
      });
      const run = await wine.run(ffmpegExe, args, START_MS);
      expect(run.code).toBe(1);
      expect(run.stderr).toMatch(/Unrecognized option 'stats_period'/);
    },
    TEST_MS,
  );
});
