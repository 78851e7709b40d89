// The replay driver child (src/replay/driver-child.ts, nut-js) through its parent side
// (src/replay/driver-process.ts) on a real X server (Xvfb 1280×800 + openbox + AT-SPI): the
// screen size, the pointer, a grab compared with an independent ffmpeg x11grab capture, the PNG
// of the last grab, real input into a GTK form, a display that does not exist, the child dying
// under a pending request, and close().
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppError } from '../../src/shared/errors';
import { detectChildLauncher, type ChildLauncher } from '../../src/infra/child-launcher';
import { spawnChild, type ChildProcess } from '../../src/infra/spawn-child';
import { decodePng } from '../../src/pipeline/media/png';
import { grayThumbnail, screenDiff } from '../../src/pipeline/replay/screen-diff';
import { startDriverProcess, type ReplayDriver } from '../../src/replay/driver-process';
import { startDesktop, type Desktop } from '../helpers/desktop';
import { REPO_ROOT } from '../helpers/paths';
import { launchGtkForm, SYSTEM_PYTHON, type GtkForm } from '../fixtures/apps/gtk-form';

const run = promisify(execFile);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const VALUES_SCRIPT = path.join(REPO_ROOT, 'tests/fixtures/apps/atspi-values.py');
const W = 1280;
const H = 800;

/** The default launcher, but the test keeps each child it starts (to kill one, to see exits). */
function keepingLauncher(children: ChildProcess[]): ChildLauncher {
  const base = detectChildLauncher();
  return {
    kind: base.kind,
    command: base.command,
    fork: (entry, args, env) => {
      const { file, args: pre } = base.command(entry);
      const child = spawnChild(file, [...pre, ...args], { env });
      children.push(child);
      return child;
    },
  };
}

/** The X keycodes the server holds down (XQueryKeymap through the system Python's ctypes). */
const KEYMAP_PY = `import ctypes
x = ctypes.CDLL('libX11.so.6')
x.XOpenDisplay.restype = ctypes.c_void_p
d = ctypes.c_void_p(x.XOpenDisplay(None))
keys = (ctypes.c_char * 32)()
x.XQueryKeymap(d, keys)
print([i for i in range(256) if keys.raw[i // 8] >> (i % 8) & 1])`;

/** X keycodes (evdev, as Xvfb maps them). */
const KEYCODE = { Return: 36, KP_Enter: 104, Control_L: 37, Shift_L: 50, t: 28, c: 54, F7: 73 };

/** One frame of the display as packed RGB24 by ffmpeg (no cursor drawn). */
async function x11grab(desktop: Desktop): Promise<Buffer> {
  const { stdout } = await run(
    'ffmpeg',
    [
      ...['-v', 'error', '-f', 'x11grab', '-draw_mouse', '0', '-video_size', `${W}x${H}`],
      ...['-i', desktop.display, '-frames:v', '1', '-f', 'rawvideo', '-pix_fmt', 'rgb24', '-'],
    ],
    { env: desktop.env, encoding: 'buffer', maxBuffer: 16 * 1024 * 1024 },
  );
  expect(stdout.length).toBe(W * H * 3);
  return stdout;
}

describe('replay driver child on Xvfb', () => {
  let desktop: Desktop;
  let driver: ReplayDriver;
  let hello: Awaited<ReturnType<typeof startDriverProcess>>['hello'];
  const children: ChildProcess[] = [];
  /** A driver whose child process the test holds (killed by afterAll if a test fails). */
  const startKept = async () => {
    const mine: ChildProcess[] = [];
    const started = await startDriverProcess({
      display: desktop.display,
      env: desktop.env,
      launcher: keepingLauncher(mine),
    });
    const child = mine[0]!;
    children.push(child);
    return { started, child };
  };
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'cua-driver-'));
  let form: GtkForm | null = null;

  beforeAll(async () => {
    desktop = await startDesktop();
    ({ driver, hello } = await startDriverProcess({
      display: desktop.display,
      env: desktop.env,
      launcher: keepingLauncher(children),
    }));
  }, 60_000);

  afterAll(async () => {
    await driver?.close();
    await form?.close();
    for (const child of children) {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGKILL');
      }
    }
    await desktop?.stop();
    fs.rmSync(tmp, { recursive: true, force: true });
  });

  it('hello: the screen size, protocol version and the pointer', () => {
    expect(hello).toMatchObject({ width: W, height: H, version: 1 });
    expect(hello.pointer.x).toBeGreaterThanOrEqual(0);
    expect(hello.pointer.x).toBeLessThan(W);
    expect(hello.pointer.y).toBeLessThan(H);
  });

  it('move puts the pointer there: pointer and xdotool both say so', async () => {
    await driver.move(321, 234);
    expect(await driver.pointer()).toEqual({ x: 321, y: 234 });
    const location = await desktop.run('xdotool', ['getmouselocation', '--shell']);
    expect(location).toMatch(/^X=321$/m);
    expect(location).toMatch(/^Y=234$/m);
    await driver.move(1279, 799);
    expect(await driver.pointer()).toEqual({ x: 1279, y: 799 });
  });

  it('grab: a 160-wide thumbnail of the screen equal to an ffmpeg capture; save: the same pixels as an RGB PNG, atomically', async () => {
    // a red window: a swap of red and blue would show
    const message = desktop.spawn('xmessage', [
      ...['-geometry', '500x300+200+150', '-bg', '#ff0000', '-fg', '#ff0000', 'red'],
    ]);
    try {
      await sleep(1500);
      await driver.move(5, 5);
      const { thumbnail, grabMs } = await driver.grab(160);
      const reference = await x11grab(desktop);
      expect([thumbnail.width, thumbnail.height]).toEqual([160, 100]);
      expect([thumbnail.sourceWidth, thumbnail.sourceHeight]).toEqual([W, H]);
      expect(thumbnail.data).toHaveLength(160 * 100);
      expect(grabMs).toBeGreaterThan(0);
      const expected = grayThumbnail(reference, W, H, 160);
      const diff = screenDiff(expected, thumbnail);
      expect(diff.changedFraction).toBe(0);
      expect(diff.meanAbsDiff).toBeLessThan(0.5 / 255);
      // the red window's inside is red's luma (76), not blue's (29)
      const inside = thumbnail.data[Math.round((150 + 150) / 8) * 160 + Math.round(450 / 8)]!;
      expect(inside).toBeCloseTo(0.299 * 255, 0);

      const file = path.join(tmp, 'shots', 'step-001.png');
      await driver.saveLastGrab(file);
      expect(fs.readdirSync(path.dirname(file))).toEqual(['step-001.png']);
      const png = decodePng(fs.readFileSync(file));
      expect([png.width, png.height]).toEqual([W, H]);
      expect(Buffer.from(png.rgb).equals(reference)).toBe(true);
      const at = (x: number, y: number) => [
        ...png.rgb.subarray((y * W + x) * 3, (y * W + x) * 3 + 3),
      ];
      expect(at(450, 300)).toEqual([255, 0, 0]);
      // another grab of a smaller width
      expect((await driver.grab(40)).thumbnail).toMatchObject({ width: 40, height: 25 });
    } finally {
      message.kill();
    }
  });

  it('keys: chords go down in order and come up whole; Return is the main Enter key', async () => {
    const held = async () => {
      const { stdout } = await run(SYSTEM_PYTHON, ['-c', KEYMAP_PY], { env: desktop.env });
      return (JSON.parse(stdout) as number[]).sort((a, b) => a - b);
    };
    expect(await held()).toEqual([]);
    const k = KEYCODE;
    for (const [keys, codes] of [
      [
        ['LeftControl', 'C'],
        [k.Control_L, k.c],
      ],
      [
        ['LeftControl', 'LeftShift', 'T'],
        [k.t, k.Control_L, k.Shift_L],
      ],
      // a function key last: nut-js took the others as modifier flags and failed to release
      [
        ['LeftShift', 'F7'],
        [k.Shift_L, k.F7],
      ],
      [['Return'], [k.Return]],
    ] as const) {
      await driver.keys(keys, true);
      expect(await held(), keys.join('+')).toEqual([...codes].sort((a, b) => a - b));
      await driver.keys(keys, false);
      expect(await held(), keys.join('+')).toEqual([]);
    }
  });

  it('click and type reach a real GTK window', async () => {
    form = await launchGtkForm(desktop);
    const w = form.ready.widgets;
    await driver.move(w.button.cx, w.button.cy);
    await driver.click('left', 1);
    await form.waitFor((m) => m.type === 'clicked' && m.widget === 'button', 5000);
    await driver.move(w.entry.cx, w.entry.cy);
    await driver.click('left', 1);
    await sleep(300);
    // shifted letters and punctuation; characters outside the X keymap (é, €) are dropped by
    // libnut on X11 (it types keysyms of the keyboard map only), so none here
    await driver.type('Hello, World!?');
    await driver.keys(['Backspace'], true);
    await driver.keys(['Backspace'], false);
    // a tab in the text is the Tab key: the focus leaves the entry before the 'x'
    await driver.type('\tx');
    await sleep(300);
    const { stdout } = await run(SYSTEM_PYTHON, [VALUES_SCRIPT], { env: desktop.env });
    expect((JSON.parse(stdout) as { name: string }).name).toBe('Hello, World!');
  });

  it('an error of one request is an AppError; the child keeps serving', async () => {
    await expect(driver.keys(['NoSuchKey'], true)).rejects.toMatchObject({
      code: 'REPLAY_DRIVER_FAILED',
      message: expect.stringMatching(/keys failed: unknown driver key 'NoSuchKey'/),
    });
    expect(await driver.pointer()).toMatchObject({ x: expect.any(Number) });
  });

  it('a display that does not exist: REPLAY_DRIVER_FAILED quoting the child and a fix', async () => {
    const env = { ...desktop.env };
    delete env.DISPLAY;
    const started = Date.now();
    const error = (await startDriverProcess({ display: ':4321', env }).catch(
      (e: unknown) => e,
    )) as AppError;
    expect(error).toBeInstanceOf(AppError);
    expect(error.code).toBe('REPLAY_DRIVER_FAILED');
    expect(error.message).toMatch(/replay driver exited \(.+\): .*Could not open main display/);
    expect(error.fix).toMatch(/display exists/);
    expect(Date.now() - started).toBeLessThan(15_000);
  });

  it('the child killed under a pending request: it rejects at once, later ones too; close() resolves', async () => {
    const { started, child } = await startKept();
    // stopped, the child cannot answer: the request is surely pending when it dies
    child.kill('SIGSTOP');
    const pending = started.driver.pointer().catch((e: unknown) => e);
    await sleep(100);
    const t = Date.now();
    child.kill('SIGKILL');
    const error = (await pending) as AppError;
    expect(error).toBeInstanceOf(AppError);
    expect(error.code).toBe('REPLAY_DRIVER_FAILED');
    expect(error.message).toMatch(/replay driver exited \(SIGKILL\)/);
    expect(Date.now() - t).toBeLessThan(2000);
    await expect(started.driver.move(1, 1)).rejects.toMatchObject({
      code: 'REPLAY_DRIVER_FAILED',
    });
    await started.driver.close();
  });

  it('a request written to a child that just died rejects (no unhandled EPIPE)', async () => {
    const { started, child } = await startKept();
    // between the child's exit and its 'close' the parent does not know yet: the write fails
    const late = new Promise<unknown>((resolve) =>
      child.once('exit', () => {
        resolve(started.driver.pointer().catch((e: unknown) => e));
      }),
    );
    child.kill('SIGKILL');
    const error = (await late) as AppError;
    expect(error).toBeInstanceOf(AppError);
    expect(error.code).toBe('REPLAY_DRIVER_FAILED');
    await sleep(200);
    await started.driver.close();
  });

  it('close() asks the child to quit and it exits 0', async () => {
    const { started, child } = await startKept();
    const closed = new Promise<[number | null, string | null]>((resolve) =>
      child.once('close', (code, signal) => resolve([code, signal])),
    );
    const t = Date.now();
    await started.driver.close();
    expect(await closed).toEqual([0, null]);
    expect(Date.now() - t).toBeLessThan(2000);
    await expect(started.driver.pointer()).rejects.toMatchObject({
      code: 'REPLAY_DRIVER_FAILED',
    });
  });
});
