// A change of the recorded display mid-recording starts a new video segment instead of failing:
// the real recorder (input hook, ffmpeg x11grab) on Xvfb, with a display watcher driven by the
// test (Xvfb 21.1 here accepts RandR's set-screen-size request but does not resize), and a capture
// source that grabs the display's rectangle, so the second segment really has the new size.
// The same desktop serves the live warnings (docs/architecture.md §5 "Live warnings"): a display
// change, a long idle stretch and a long recording warn during a real recording and are stored.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readDisplayInfo, type DisplayInfo } from '../../../src/recorder/display-info';
import { RandrEventWatcher, type DisplayWatcher } from '../../../src/recorder/display-watcher';
import { createPlatform, type RecorderPlatform } from '../../../src/recorder/platform';
import { recordSession, type RecordControl } from '../../../src/services/recording/record-service';
import { liveWarningCodeOf, segmentAt } from '../../../src/shared/domain';
import {
  getRecording,
  listMarks,
  listVideoSegments,
  readEvents,
  resolveRecordingSeq,
} from '../../../src/store';
import { readRecordingWarnings } from '../../../src/store/queries/recording-warnings';
import { startDesktop, type Desktop } from '../../helpers/desktop';
import { tempLibrary } from '../../helpers/library';
import { runCli } from '../../helpers/cli';
import { REPO_ROOT } from '../../helpers/paths';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A watcher the test drives. */
class FakeDisplayWatcher implements DisplayWatcher {
  private readonly listeners = new Set<(next: DisplayInfo) => void>();
  started: DisplayInfo | null = null;
  isStopped = false;
  start(current: DisplayInfo): void {
    this.started = current;
  }
  onChange(listener: (next: DisplayInfo) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
  check(): Promise<boolean> {
    return Promise.resolve(false);
  }
  stop(): void {
    this.isStopped = true;
  }
  change(next: DisplayInfo): void {
    for (const l of this.listeners) {
      l(next);
    }
  }
}

describe('a display change mid-recording', { timeout: 120_000 }, () => {
  let desktop: Desktop;
  beforeAll(async () => {
    desktop = await startDesktop({ shouldWaitForWindowManager: false });
  }, 60_000);
  afterAll(async () => {
    await desktop?.stop();
  });

  it("Linux's watcher listens with the real xev, reads the live X screen and reports no change while it stays", async () => {
    const watcher = createPlatform('linux').displays!({ now: () => 0, env: desktop.env });
    expect(watcher).toBeInstanceOf(RandrEventWatcher);
    const errors: string[] = [];
    watcher.onChange(() => errors.push('reported a change'));
    watcher.start(await readDisplayInfo(desktop.env));
    try {
      await sleep(500);
      expect(await watcher.check()).toBe(false);
      // xev is listening (a missing or failed one would have fallen back and said so)
      const xev = await desktop.run('pgrep', ['-f', '^xev -root -event randr']).catch(() => '');
      expect(xev.trim()).not.toBe('');
    } finally {
      await watcher.stop();
    }
    expect(errors).toEqual([]);
  });

  it('ends the segment, starts the next on the new geometry, keeps input flowing and marks it', async () => {
    const t = tempLibrary();
    try {
      const linux = createPlatform('linux');
      const watcher = new FakeDisplayWatcher();
      const platform: RecorderPlatform = {
        ...linux,
        capture: {
          ...linux.capture,
          // the display's own rectangle of the X screen (the whole screen at first)
          source: (d) => ({
            kind: 'x11grab',
            display: d.display,
            region: { x: d.origin?.x ?? 0, y: d.origin?.y ?? 0, width: d.width, height: d.height },
          }),
        },
        displays: () => watcher,
      };
      const x = (...args: string[]) => desktop.run('xdotool', args);
      let control: RecordControl | null = null;
      let id = '';
      const live: string[] = [];
      const done = recordSession(t.lib, {
        task: 'display change',
        platform,
        env: desktop.env,
        noA11y: true,
        fps: 10,
        appVersion: 'test',
        onWarning: (m) => live.push(m),
        onStarted: (info) => {
          id = info.id;
        },
        onControl: (c) => {
          control = c;
        },
      });
      for (let i = 0; i < 200 && !control; i += 1) {
        await sleep(50);
      }
      expect(control).not.toBeNull();
      const first = watcher.started!;
      expect(first.width).toBe(1280);
      await sleep(500);
      await x('mousemove', '300', '200');
      await sleep(500);
      // the recorded display is now a 640x480 rectangle at +100+50 of the X screen
      watcher.change({ ...first, width: 640, height: 480, origin: { x: 100, y: 50 } });
      // the mark is stored once the next segment's frame 0 exists
      const seqNow = resolveRecordingSeq(t.lib.db, id).seq;
      const isMarked = () => listMarks(t.lib.db, seqNow).some((m) => m.kind === 'display-change');
      for (let i = 0; i < 300 && !isMarked(); i += 1) {
        await sleep(50);
      }
      expect(isMarked()).toBe(true);
      // the live warning, while still recording: shown (onWarning) and already on the row
      const changed = live.filter((w) => liveWarningCodeOf(w) === 'DISPLAY_CHANGED');
      expect(changed).toHaveLength(1);
      expect(changed[0]).toMatch(
        /^DISPLAY_CHANGED: the recorded display changed from 1280x800 to 640x480\+100\+50 at 0:0\d\.\d;/,
      );
      expect(readRecordingWarnings(t.lib.db, seqNow)).toContain(changed[0]);
      await sleep(300);
      await x('mousemove', '400', '300');
      await sleep(600);
      control!.stop();
      const result = await done;
      expect(result.error).toBeNull();
      expect(result.status).toBe('complete');
      expect(watcher.isStopped).toBe(true);

      const { seq } = resolveRecordingSeq(t.lib.db, id);
      const segments = listVideoSegments(t.lib.db, seq);
      expect(segments.map((s) => s.display)).toEqual([
        { x: 0, y: 0, width: 1280, height: 800, scale: first.scale },
        { x: 100, y: 50, width: 640, height: 480, scale: first.scale },
      ]);
      expect(segments[0]!.endMs).not.toBeNull();
      expect(segments[1]!.startMs).toBeGreaterThan(segments[0]!.endMs!);

      const mark = listMarks(t.lib.db, seq).find((m) => m.kind === 'display-change');
      expect(mark).toBeDefined();
      expect(mark!.data).toEqual({ from: segments[0]!.display, to: segments[1]!.display });
      expect(mark!.endMs).toBe(segments[1]!.startMs);

      // input went on into the same recording: positions in pixels of the display recorded then
      const moves = readEvents(t.lib.db, seq).filter((e) => e.kind === 'move');
      const before = moves.filter((e) => e.tMs < mark!.tMs);
      const after = moves.filter((e) => e.tMs > mark!.endMs!);
      expect(before.at(-1)).toMatchObject({ x: 300, y: 200 });
      expect(after.at(-1)).toMatchObject({ x: 300, y: 250 });
      expect(segmentAt(segments, before.at(-1)!.tMs)!.display.width).toBe(1280);
      expect(segmentAt(segments, after.at(-1)!.tMs)!.display.x).toBe(100);

      // the videos: one joined canvas (the smaller segment padded, never scaled), then each
      // segment at its own size
      const rec = getRecording(t.lib.db, id);
      expect(rec.videos.map((v) => [v.path.split('/').at(-1), v.width, v.height])).toEqual([
        ['video.mp4', 1280, 800],
        ['video-0.mp4', 1280, 800],
        ['video-1.mp4', 640, 480],
      ]);
      expect(rec.screen).toMatchObject({ width: 1280, height: 800, origin: { x: 0, y: 0 } });
      // stored with the recording (show and the review UI list it), once
      expect(rec.warnings.filter((w) => liveWarningCodeOf(w) === 'DISPLAY_CHANGED')).toEqual(
        changed,
      );
      expect(result.warnings).toContain(changed[0]);
    } finally {
      t.cleanup();
    }
  });

  it("grows the recording's screen to the joined canvas when the display gets larger", async () => {
    const t = tempLibrary();
    try {
      const linux = createPlatform('linux');
      const watcher = new FakeDisplayWatcher();
      const platform: RecorderPlatform = {
        ...linux,
        capture: {
          ...linux.capture,
          // the recording starts on a 640x480 rectangle of the X screen at +0+0
          readDisplay: async (env) => ({
            ...(await linux.capture.readDisplay(env)),
            width: 640,
            height: 480,
          }),
          source: (d) => ({
            kind: 'x11grab',
            display: d.display,
            region: { x: d.origin?.x ?? 0, y: d.origin?.y ?? 0, width: d.width, height: d.height },
          }),
        },
        displays: () => watcher,
      };
      let control: RecordControl | null = null;
      let id = '';
      const done = recordSession(t.lib, {
        task: 'display grows',
        platform,
        env: desktop.env,
        noA11y: true,
        fps: 10,
        appVersion: 'test',
        onStarted: (info) => {
          id = info.id;
        },
        onControl: (c) => {
          control = c;
        },
      });
      for (let i = 0; i < 200 && !control; i += 1) {
        await sleep(50);
      }
      const first = watcher.started!;
      await sleep(600);
      watcher.change({ ...first, width: 1280, height: 800 });
      const seq = resolveRecordingSeq(t.lib.db, id).seq;
      const isMarked = () => listMarks(t.lib.db, seq).some((m) => m.kind === 'display-change');
      for (let i = 0; i < 300 && !isMarked(); i += 1) {
        await sleep(50);
      }
      await sleep(600);
      control!.stop();
      const result = await done;
      expect(result.error).toBeNull();
      const rec = getRecording(t.lib.db, id);
      expect(rec.videos.map((v) => [v.path.split('/').at(-1), v.width, v.height])).toEqual([
        ['video.mp4', 1280, 800],
        ['video-0.mp4', 640, 480],
        ['video-1.mp4', 1280, 800],
      ]);
      // steps' coordinates are normalised by the screen: it is the canvas the video shows
      expect(rec.screen).toMatchObject({ width: 1280, height: 800 });
    } finally {
      t.cleanup();
    }
  });

  it('warns live of a long idle stretch (again after input) and a long recording, and stores both', async () => {
    const t = tempLibrary();
    try {
      let control: RecordControl | null = null;
      let id = '';
      const live: string[] = [];
      const done = recordSession(t.lib, {
        task: 'idle',
        platform: createPlatform('linux'),
        env: desktop.env,
        noA11y: true,
        fps: 5,
        appVersion: 'test',
        liveWarnings: { idleMs: 1000, longRecordingMs: 3000 },
        onWarning: (m) => live.push(m),
        onStarted: (info) => {
          id = info.id;
        },
        onControl: (c) => {
          control = c;
        },
      });
      for (let i = 0; i < 200 && !control; i += 1) {
        await sleep(50);
      }
      expect(control).not.toBeNull();
      const seq = resolveRecordingSeq(t.lib.db, id).seq;
      const idle = () => live.filter((w) => liveWarningCodeOf(w) === 'IDLE_LONG');
      const waitFor = async (ok: () => boolean) => {
        for (let i = 0; i < 80 && !ok(); i += 1) {
          await sleep(50);
        }
      };
      // no input at all: the first stretch warns once, during the recording, and is stored
      await waitFor(() => idle().length > 0);
      expect(idle()).toHaveLength(1);
      expect(idle()[0]).toMatch(/^IDLE_LONG: no input for 1 s \(since 0:00\.0\);/);
      expect(readRecordingWarnings(t.lib.db, seq)).toContain(idle()[0]);
      await sleep(400);
      expect(idle()).toHaveLength(1); // still the same stretch: no second warning
      // real input ends the stretch; the next one warns again, since that input
      await desktop.run('xdotool', ['mousemove', '200', '150']);
      await waitFor(() => idle().length > 1);
      expect(idle()).toHaveLength(2);
      const since = /since (\d+):(\d+\.\d)\)/.exec(idle()[1]!)!;
      expect(Number(since[1]) * 60 + Number(since[2])).toBeGreaterThan(1);
      const long = () => live.filter((w) => liveWarningCodeOf(w) === 'RECORDING_LONG');
      await waitFor(() => long().length > 0);
      expect(long()).toHaveLength(1);
      expect(long()[0]).toMatch(/^RECORDING_LONG: recording for 3 s \(pauses excluded\)/);
      expect(control!.state).toBe('recording'); // seen live, before the stop
      control!.stop();
      const result = await done;
      expect(result.error).toBeNull();
      expect(result.status).toBe('complete');
      const stored = getRecording(t.lib.db, id).warnings.filter((w) => liveWarningCodeOf(w));
      expect(stored).toEqual(
        [...idle(), ...long()].sort((a, b) => live.indexOf(a) - live.indexOf(b)),
      );
      expect(result.warnings).toEqual(expect.arrayContaining(stored));
    } finally {
      t.cleanup();
    }
  });

  it('record (the CLI) prints IDLE_LONG on stderr while recording, and show lists it after', async () => {
    const lib = fs.mkdtempSync(path.join(os.tmpdir(), 'cua-live-'));
    try {
      const child = spawn(
        process.execPath,
        [
          path.join(REPO_ROOT, 'bin', 'cua-annotator.mjs'),
          'record',
          '--task',
          'idle at the desk',
          '--no-a11y',
          '--fps',
          '5',
          '--json',
          '--library',
          lib,
        ],
        {
          env: { ...desktop.env, CUA_RECORD_IDLE_WARN_S: '1', CUA_RECORD_LONG_WARN_MIN: '0' },
          stdio: ['ignore', 'pipe', 'pipe'],
        },
      );
      let out = '';
      let err = '';
      child.stdout.on('data', (d: Buffer) => (out += d.toString()));
      child.stderr.on('data', (d: Buffer) => (err += d.toString()));
      const exit = new Promise<number | null>((resolve) => child.once('close', resolve));
      const warned = () => /^warning: IDLE_LONG: no input for 1 s \(since 0:00\.0\);/m.test(err);
      for (let i = 0; i < 300 && !warned() && child.exitCode === null; i += 1) {
        await sleep(50);
      }
      expect(warned(), err).toBe(true);
      expect(err).not.toMatch(/RECORDING_LONG/); // 0 turns it off
      expect(child.exitCode).toBeNull(); // still recording when it said so
      child.kill('SIGINT');
      expect(await exit, err).toBe(0);
      const summary = JSON.parse(out) as { id: string; warnings: string[] };
      const idle = summary.warnings.filter((w) => liveWarningCodeOf(w) === 'IDLE_LONG');
      expect(idle).toHaveLength(1);
      const show = await runCli(['show', summary.id, '--json', '--library', lib]);
      expect(show.code, show.stderr).toBe(0);
      expect((JSON.parse(show.stdout) as { warnings: string[] }).warnings).toContain(idle[0]);
    } finally {
      fs.rmSync(lib, { recursive: true, force: true });
    }
  });
});
