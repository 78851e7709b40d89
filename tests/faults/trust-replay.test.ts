// Replay faults of issue 26 (docs/replay.md §5–§6), on real X servers (Xvfb), the real CLI and
// the real HTTP server: the "not your own display" guard compares X servers, not names (item 4,
// README row 32); elements are read from the target display's accessibility bus (item 5, row
// 33); masked password steps are not replayed or scored (item 10, row 38); a refused
// `replay:start` is a 4xx with a fix for the UI, and one replay runs per display (item 21, row
// 49).
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ReplayReport } from '../../src/shared/domain';
import { createEventHub, createServer, mediaPath } from '../../src/server';
import { createServices } from '../../src/services/create-services';
import { openLibrary } from '../../src/services/library/library';
import { replayRecording } from '../../src/services/quality/replay-service';
import { getAppSettings, getRecording, setAppSettings } from '../../src/store';
import { applyEdit } from '../../src/services/edits/edit-service';
import { effectiveSteps } from '../../src/services/steps';
import {
  keyframeStaleness,
  refreshStaleKeyframes,
  TERMINATE_KEYFRAME_ID,
} from '../../src/services/keyframes/keyframes';
import { decodePng } from '../../src/pipeline/media/png';
import { grayThumbnail, type Thumbnail } from '../../src/pipeline/replay/screen-diff';
import { MASKED_KEY } from '../../src/recorder/input/key-masking';
import type { ReplayDriver } from '../../src/replay/driver-process';
import { verdictText } from '../../src/renderer/store/replay/selectors';
import { compareWithOwnDisplay, sameXServer } from '../../src/replay/display-identity';
import { acquireDisplayLock, displayLockFile } from '../../src/replay/display-lock';
import { runCli } from '../helpers/cli';
import { launchGtkForm, type GtkForm } from '../fixtures/apps/gtk-form';
import { recordGtkFormSession } from '../fixtures/apps/gtk-form-session';
import { startDesktop, type Desktop } from '../helpers/desktop';
import { copyExampleLibrary } from '../helpers/example-library';
import { REPO_ROOT } from '../helpers/paths';
import { rawRequest, json } from '../server/http-client';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** An X server that is not a virtual one this tool knows: Xvfb started as `Xlive` (its command
 * name, which the lock file's pid shows, is the link's name). */
async function startNonVirtualServer(dir: string): Promise<{ display: string; stop(): void }> {
  const link = path.join(dir, 'Xlive');
  fs.symlinkSync('/usr/bin/Xvfb', link);
  for (let n = 640 + 7 * Number(process.env.VITEST_POOL_ID ?? 0); n < 700; n++) {
    if (fs.existsSync(`/tmp/.X${n}-lock`) || fs.existsSync(`/tmp/.X11-unix/X${n}`)) {
      continue;
    }
    const child: ChildProcess = spawn(link, [`:${n}`, '-nolisten', 'tcp', '-noreset'], {
      stdio: 'ignore',
    });
    for (let i = 0; i < 100; i++) {
      if (child.exitCode !== null) {
        break;
      }
      if (fs.existsSync(`/tmp/.X11-unix/X${n}`)) {
        await sleep(100);
        return { display: `:${n}`, stop: () => child.kill('SIGTERM') };
      }
      await sleep(50);
    }
    child.kill('SIGKILL');
  }
  throw new Error('no free display for the non-virtual X server');
}

describe('replay faults (issue 26)', () => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'cua-trust-replay-'));
  const libDir = path.join(root, 'lib');
  let id = '';
  let desktop: Desktop;

  beforeAll(async () => {
    id = await copyExampleLibrary(libDir);
    desktop = await startDesktop({ shouldWaitForWindowManager: false });
  }, 120_000);

  afterAll(async () => {
    await desktop?.stop();
    fs.rmSync(root, { recursive: true, force: true });
  });

  const replayArgs = (display: string, extra: string[] = []) => [
    'replay',
    id,
    '--display',
    display,
    '--no-elements',
    '--json',
    '--library',
    libDir,
    ...extra,
  ];

  it('item 4: a display spelled :0N while the caller runs on :N is refused (one X server, whatever its spelling), nothing driven', async () => {
    const spelling = `:0${desktop.displayNumber}`;
    await desktop.run('xdotool', ['mousemove', '3', '4']);
    const r = await runCli(replayArgs(spelling, ['--speed', '100']), desktop.env);
    expect(r.code, r.stdout).toBe(2);
    expect(r.stderr).toMatch(/REPLAY_LIVE_DISPLAY/);
    expect(r.stderr).toMatch(/display you are working on/);
    expect(r.stderr).toMatch(/fix: .*--display :N/);
    // the pointer was not moved
    expect(await desktop.run('xdotool', ['getmouselocation'])).toMatch(/^x:3 y:4 /);
    const v = await compareWithOwnDisplay(`unix:${desktop.displayNumber}.0`, { env: desktop.env });
    expect(v.verdict).toBe('own');
  }, 60_000);

  it('item 4: with DISPLAY unset, an X server that is not a known virtual one is refused; Xvfb is driven', async () => {
    const live = await startNonVirtualServer(root);
    try {
      const r = await runCli(replayArgs(live.display, ['--speed', '100']), { DISPLAY: '' });
      expect(r.code, r.stdout).toBe(2);
      expect(r.stderr).toMatch(/REPLAY_LIVE_DISPLAY/);
      expect(r.stderr).toMatch(/not a virtual X server/);
      const v = await compareWithOwnDisplay(live.display, { env: { DISPLAY: '' } });
      expect(v).toMatchObject({ verdict: 'unsure', virtualServer: null });
      // the caller on that server, the target Xvfb: another server, driven
      const other = await compareWithOwnDisplay(desktop.display, {
        env: { DISPLAY: live.display },
      });
      expect(other).toMatchObject({ verdict: 'other', key: desktop.display });
      // the probe itself: a nonce set through one name is read through the other
      expect(
        await sameXServer(`:0${desktop.displayNumber}`, `unix:${desktop.displayNumber}.0`),
      ).toBe('same');
      expect(await sameXServer(desktop.display, live.display)).toBe('different');
      expect(await sameXServer(':4747', desktop.display)).toBe('a-unreachable');
    } finally {
      live.stop();
    }
    const virtual = await compareWithOwnDisplay(desktop.display, { env: { DISPLAY: '' } });
    expect(virtual).toMatchObject({ verdict: 'other', virtualServer: 'Xvfb' });
  }, 60_000);

  it('item 4: on macOS and Windows any display is the real desktop: refused, the driver never starts', async () => {
    for (const platform of ['darwin', 'win32'] as const) {
      const lib = openLibrary(libDir);
      let started = 0;
      try {
        const run = replayRecording(lib, id, {
          display: ':99',
          env: { DISPLAY: '' },
          platform,
          elements: false,
          stopHotkey: false,
          startDriver: () => {
            started += 1;
            return Promise.reject(new Error('the driver must not start'));
          },
        });
        await expect(run).rejects.toMatchObject({ code: 'REPLAY_LIVE_DISPLAY' });
      } finally {
        lib.close();
      }
      expect(started, platform).toBe(0);
    }
  }, 60_000);

  it('item 4: replay:start is served to loopback clients of a loopback server only', async () => {
    const lib = openLibrary(libDir);
    const events = createEventHub();
    const services = createServices(lib, {
      appVersion: '0.0.0-test',
      emit: events.emit,
      mediaUrl: mediaPath,
      env: { DISPLAY: '' },
    });
    const server = await createServer({
      services,
      events,
      host: '0.0.0.0',
      allowRemote: true,
      password: 'correct horse battery',
      staticDir: root,
    });
    try {
      const res = await rawRequest(server.port, {
        method: 'POST',
        // under the per-launch session path (the only path the token cookie is sent to)
        path: `${server.basePath}/api/replay:start`,
        headers: {
          Authorization: `Basic ${Buffer.from('reviewer:correct horse battery').toString('base64')}`,
          Cookie: `cua_token=${server.token}`,
          'Content-Type': 'application/json',
        },
        body: JSON.stringify({ id }),
      });
      expect(res.status).toBe(403);
      expect(json(res).error.code).toBe('FORBIDDEN');
    } finally {
      await server.close();
      await services.close();
      lib.close();
    }
  }, 60_000);

  it("item 21: replay:start on the server's own display is a 4xx with a fix for the UI", async () => {
    const lib = openLibrary(libDir);
    const settings = (getAppSettings(lib.db) ?? {}) as Record<string, unknown>;
    setAppSettings(lib.db, { ...settings, replayDisplay: desktop.display });
    const events = createEventHub();
    const services = createServices(lib, {
      appVersion: '0.0.0-test',
      emit: events.emit,
      mediaUrl: mediaPath,
      env: desktop.env,
    });
    const server = await createServer({ services, events, staticDir: root });
    try {
      const res = await rawRequest(server.port, {
        method: 'POST',
        path: '/api/replay:start',
        headers: {
          Authorization: `Bearer ${server.token}`,
          'Content-Type': 'application/json',
        },
        body: JSON.stringify({ id }),
      });
      expect(res.status).toBe(422);
      const error = json(res).error;
      expect(error.code).toBe('REPLAY_LIVE_DISPLAY');
      expect(error.fix).toMatch(/Settings → Replay display/);
      expect(error.fix).not.toMatch(/--display|--live/);
    } finally {
      await server.close();
      await services.close();
    }
    // a display another replay drives (this process holds its lock): 409 at once, nothing started
    const other = createServices(lib, {
      appVersion: '0.0.0-test',
      emit: events.emit,
      mediaUrl: mediaPath,
      env: { ...desktop.env, DISPLAY: '' },
    });
    const busyServer = await createServer({ services: other, events, staticDir: root });
    const held = await acquireDisplayLock(desktop.display, {
      display: desktop.display,
      recording: id,
    });
    try {
      const res = await rawRequest(busyServer.port, {
        method: 'POST',
        path: '/api/replay:start',
        headers: {
          Authorization: `Bearer ${busyServer.token}`,
          'Content-Type': 'application/json',
        },
        body: JSON.stringify({ id }),
      });
      expect(res.status).toBe(409);
      expect(json(res).error.code).toBe('REPLAY_DISPLAY_BUSY');
      const status = await other.dispatch('replay:status', { id });
      expect(status.ok && (status.value as { running: boolean }).running).toBe(false);
    } finally {
      await held.release();
      await busyServer.close();
      await other.close();
      setAppSettings(lib.db, settings);
      lib.close();
    }
  }, 60_000);

  it('item 21: a second replay on the same display is refused; the first runs on undisturbed', async () => {
    const first = spawn(
      process.execPath,
      [
        path.join(REPO_ROOT, 'bin', 'cua-annotator.mjs'),
        ...replayArgs(desktop.display, ['--speed', '4']),
      ],
      { env: { ...desktop.env, DISPLAY: '' }, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let out = '';
    let err = '';
    first.stdout.on('data', (d: Buffer) => (out += d.toString()));
    first.stderr.on('data', (d: Buffer) => (err += d.toString()));
    const exited = new Promise<number | null>((resolve) => first.once('close', resolve));
    const lock = displayLockFile(desktop.display);
    for (let i = 0; i < 200 && !fs.existsSync(lock); i++) {
      await sleep(50);
    }
    // the first holds the display's lock; the second (another spelling of it) is refused
    const second = await runCli(replayArgs(`unix:${desktop.displayNumber}.0`, ['--speed', '100']), {
      ...desktop.env,
      DISPLAY: '',
    });
    expect(second.code, second.stdout).toBe(2);
    expect(second.stderr).toMatch(/REPLAY_DISPLAY_BUSY/);
    expect(second.stderr).toMatch(/one replay runs per display/);
    expect(second.stderr).toMatch(/fix: /);
    const code = await exited;
    expect([0, 1], err).toContain(code);
    const report = JSON.parse(out) as ReplayReport;
    expect(report.stopped).toBeNull();
    expect(report.steps).toHaveLength(report.stepCount + 1);
    // released on exit
    expect(fs.existsSync(lock)).toBe(false);
  }, 180_000);

  it('item 21: a lock left by a killed replay (dead pid) is taken over; a live one is not', async () => {
    const dir = path.join(root, 'locks');
    fs.mkdirSync(dir, { recursive: true });
    const dead = spawn(process.execPath, ['-e', '0']);
    await new Promise((r) => dead.once('close', r));
    fs.writeFileSync(
      displayLockFile(':77', dir),
      JSON.stringify({ pid: dead.pid, processStart: null, display: ':77', recording: 'x' }),
    );
    const held = await acquireDisplayLock(':77', { display: ':77', recording: id }, dir);
    await expect(
      acquireDisplayLock(':77', { display: ':77.0', recording: id }, dir),
    ).rejects.toMatchObject({ code: 'REPLAY_DISPLAY_BUSY' });
    await held.release();
    expect(fs.existsSync(displayLockFile(':77', dir))).toBe(false);
    const again = await acquireDisplayLock(':77', { display: ':77', recording: id }, dir);
    await again.release();
  });
});

/** A driver standing in for nut-js whose every grab shows the keyframe the runner compares with
 * (a faithful replay), recording what it was asked to do. */
class FaithfulDriver implements ReplayDriver {
  typed: string[] = [];
  private grabs = 0;
  private pointerAt = { x: 1, y: 1 };
  constructor(
    private readonly screen: { width: number; height: number },
    private readonly screens: Thumbnail[],
  ) {}
  hello() {
    return Promise.resolve({ ...this.screen, pointer: { ...this.pointerAt }, version: 1 });
  }
  pointer() {
    return Promise.resolve({ ...this.pointerAt });
  }
  grab() {
    const thumbnail = this.screens[Math.min(this.grabs++, this.screens.length - 1)]!;
    return Promise.resolve({ thumbnail, grabMs: 1 });
  }
  saveLastGrab(file: string) {
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, 'png');
    return Promise.resolve();
  }
  move(x: number, y: number) {
    this.pointerAt = { x, y };
    return Promise.resolve();
  }
  button = () => Promise.resolve();
  click = () => Promise.resolve();
  scroll = () => Promise.resolve();
  type = (text: string) => {
    this.typed.push(text);
    return Promise.resolve();
  };
  keys = () => Promise.resolve();
  close = () => Promise.resolve();
}

describe('replay of a masked (password) step (issue 26 item 10)', () => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'cua-trust-replay-masked-'));
  const libDir = path.join(root, 'lib');
  let id = '';
  let masked = 0;
  let stepCount = 0;
  let screens: Thumbnail[] = [];
  let screen = { width: 0, height: 0 };

  beforeAll(async () => {
    // the example's 10-second clip (steps 0 and 1, then terminate): the CLI replays every step
    id = await copyExampleLibrary(libDir, { clip: true });
    const lib = openLibrary(libDir);
    try {
      const rec = getRecording(lib.db, id);
      const steps = effectiveSteps(lib, rec.seq);
      masked = steps.findIndex((s, i) => i > 0 && s.calls.every((c) => c.name !== 'terminate'));
      // what the recorder stores for typing into a password field: one bullet per character
      applyEdit(lib, id, {
        op: 'set-action',
        stepId: steps[masked]!.id,
        calls: [{ name: 'write', args: { message: `${MASKED_KEY.repeat(7)}` } }],
      });
      await refreshStaleKeyframes(lib, id);
      const now = keyframeStaleness(lib, rec.seq);
      stepCount = now.steps.length;
      screen = { width: rec.screen.width, height: rec.screen.height };
      const thumb = (file: string | null | undefined) => {
        const png = decodePng(fs.readFileSync(lib.resolve(file!)));
        return grayThumbnail(png.rgb, png.width, png.height);
      };
      screens = [
        ...now.steps.map((s) => thumb(now.rows.get(s.id)?.path)),
        thumb(now.rows.get(TERMINATE_KEYFRAME_ID)?.path),
      ];
    } finally {
      lib.close();
    }
  }, 180_000);

  afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

  it('item 10: a masked step is not typed, says "masked", and is left out of the score', async () => {
    // a masked step grabs nothing: the live screens are the other steps' keyframes
    const driver = new FaithfulDriver(
      screen,
      screens.filter((_, i) => i !== masked),
    );
    const lib = openLibrary(libDir);
    let report: ReplayReport;
    try {
      report = await replayRecording(lib, id, {
        display: ':4747',
        env: { DISPLAY: ':4748' },
        elements: false,
        stopHotkey: false,
        speed: 100,
        timing: { minSettleMs: 0, maxSettleMs: 0, hoverMs: 0, pollMs: 1, dragMoves: 1 },
        startDriver: () => Promise.resolve(driver),
      });
    } finally {
      lib.close();
    }
    // the bullets were never typed
    expect(driver.typed.join('')).not.toContain(MASKED_KEY);
    const step = report.steps[masked]!;
    expect(step).toMatchObject({ masked: true, ok: false });
    expect(step.note).toMatch(/masked.*not replayed/);
    // every other result matches (a faithful replay): the score counts them only
    const others = report.steps.filter((s) => s.index !== masked);
    expect(others.every((s) => s.ok)).toBe(true);
    expect(report.score).toBe(1);
    expect(report.firstDivergent).toBeNull();
    expect(report.steps).toHaveLength(stepCount + 1);
    // the UI's word for it
    expect(verdictText({ ok: false, masked: true })).toBe('masked');
    expect(verdictText({ ok: false, masked: false })).toBe('diverges');
  }, 120_000);

  it('item 10: the CLI says MASKED for the step and leaves it out of the count', async () => {
    const desktop = await startDesktop({ shouldWaitForWindowManager: false });
    try {
      const r = await runCli(
        [
          'replay',
          id,
          '--display',
          desktop.display,
          '--speed',
          '100',
          '--no-elements',
          '--library',
          libDir,
        ],
        { ...desktop.env, DISPLAY: '' },
      );
      expect([0, 1], r.stderr).toContain(r.code);
      const line = r.stdout.split('\n').find((l) => l.startsWith(String(masked).padStart(4)));
      expect(line).toMatch(/ MASKED .*masked step .*not replayed/);
      expect(r.stdout).toMatch(
        new RegExp(`/${stepCount} results match; 1 masked step not replayed or scored\\)`),
      );
    } finally {
      await desktop.stop();
    }
  }, 120_000);
});

describe('replay elements come from the target display (issue 26 item 5)', () => {
  // "yours": the desktop the caller works on (its DISPLAY and D-Bus session); "target": the
  // virtual desktop the replay drives, with a D-Bus session and AT-SPI bus of its own
  let yours: Desktop;
  let target: Desktop;
  let yourForm: GtkForm | null = null;
  let targetForm: GtkForm | null = null;
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'cua-trust-replay-a11y-'));
  const libDir = path.join(root, 'lib');
  let id = '';

  beforeAll(async () => {
    yours = await startDesktop();
    target = await startDesktop({ firstDisplay: yours.displayNumber + 1 });
    yourForm = await launchGtkForm(yours);
    ({ id } = await recordGtkFormSession(yours, yourForm, libDir));
  }, 180_000);

  afterAll(async () => {
    await yourForm?.close();
    await targetForm?.close();
    await target?.stop();
    await yours?.stop();
    fs.rmSync(root, { recursive: true, force: true });
  });

  const replay = async () => {
    // the caller's whole environment is its own desktop's: DISPLAY and DBUS_SESSION_BUS_ADDRESS
    const r = await runCli(
      ['replay', id, '--display', target.display, '--speed', '4', '--json', '--library', libDir],
      yours.env,
    );
    expect([0, 1], r.stderr).toContain(r.code);
    return JSON.parse(r.stdout) as ReplayReport;
  };

  it("item 5: the form open on the caller's desktop does not match a step on an empty target", async () => {
    const report = await replay();
    expect(report.warnings.join(' ')).not.toMatch(/elements not compared/);
    const first = report.steps[0]!;
    expect(first.recordedElement).toMatchObject({ title: 'Name' });
    // nothing named "Name" is under the point on the target desktop
    expect(first.elementMatch).toBe(false);
    expect(first.liveElement?.title ?? null).not.toBe('Name');
  }, 120_000);

  it('item 5: a form on the target desktop is read from its own accessibility bus', async () => {
    targetForm = await launchGtkForm(target);
    await target.run('xdotool', ['mousemove', '700', '700']);
    const report = await replay();
    expect(report.warnings).toEqual([]);
    expect(report.steps[0]!.elementMatch).toBe(true);
    expect(report.steps[0]!.liveElement).toMatchObject({ title: 'Name' });
  }, 120_000);

  it('item 5: a target without an accessibility bus of its own: "elements not compared"', async () => {
    await target.run('xprop', ['-root', '-remove', 'AT_SPI_BUS']);
    const report = await replay();
    expect(report.warnings.join(' ')).toMatch(/elements not compared: .*no AT_SPI_BUS/);
    expect(report.steps.every((s) => s.elementMatch === null)).toBe(true);
  }, 120_000);
});
