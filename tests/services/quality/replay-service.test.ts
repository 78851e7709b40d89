// The replay service (src/services/quality/replay-service.ts) without a desktop: the display it
// chooses or refuses, and replayRecording on the example recording (real library, real
// keyframes) with a fake driver whose screen shows the recorded keyframes: the report's shape,
// the stored report.json, lastReplayReport, a divergent step's screenshot, a stopped run, speed
// validation and a recording without steps.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ReplayReport } from '../../../src/shared/domain';
import { AppError } from '../../../src/shared/errors';
import { getRecording } from '../../../src/store';
import { decodePng } from '../../../src/pipeline/media/png';
import { grayThumbnail, type Thumbnail } from '../../../src/pipeline/replay/screen-diff';
import type { ReplayDriver } from '../../../src/replay/driver-process';
import type { Library } from '../../../src/services/library/library';
import {
  TERMINATE_KEYFRAME_ID,
  keyframeStaleness,
} from '../../../src/services/keyframes/keyframes';
import {
  chooseReplayDisplay,
  lastReplayReport,
  REPLAY_DIR,
  REPLAY_REPORT_FILE,
  replayRecording,
  sameDisplay,
  type ReplayOptions,
} from '../../../src/services/quality/replay-service';
import { exampleLibrary } from '../../helpers/example-library';
import { makeRecording } from '../../helpers/store';

function codeOf(fn: () => unknown): AppError {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(AppError);
    return error as AppError;
  }
  throw new Error('did not throw');
}

describe('chooseReplayDisplay', () => {
  it('no --display and no DISPLAY: REPLAY_NO_DISPLAY with a fix', () => {
    const e = codeOf(() => chooseReplayDisplay({}, {}));
    expect(e.code).toBe('REPLAY_NO_DISPLAY');
    expect(e.fix).toMatch(/--display :N/);
    expect(codeOf(() => chooseReplayDisplay({ display: ' ' }, {})).code).toBe('REPLAY_NO_DISPLAY');
  });

  it('the display the user works on is refused without live, whatever its spelling', () => {
    for (const [display, current] of [
      [undefined, ':5'],
      [':5', ':5'],
      [':5', ':5.0'],
      [':5.0', ':5'],
      [' :5 ', ':5'],
    ] as const) {
      const e = codeOf(() => chooseReplayDisplay({ display }, { DISPLAY: current }));
      expect(e.code, `${display} on ${current}`).toBe('REPLAY_LIVE_DISPLAY');
      expect(e.fix).toMatch(/--display :N.*--live/s);
    }
    expect(chooseReplayDisplay({ live: true }, { DISPLAY: ':5' })).toBe(':5');
    expect(chooseReplayDisplay({ display: ':5.0', live: true }, { DISPLAY: ':5' })).toBe(':5.0');
  });

  it('another display is driven; so is any display when DISPLAY is unset', () => {
    expect(chooseReplayDisplay({ display: ':99' }, { DISPLAY: ':5' })).toBe(':99');
    expect(chooseReplayDisplay({ display: ':50' }, { DISPLAY: ':5' })).toBe(':50');
    expect(chooseReplayDisplay({ display: ':5.1' }, {})).toBe(':5.1');
    expect(sameDisplay(':5', ':50')).toBe(false);
    expect(sameDisplay('otherhost:5', ':5')).toBe(false);
  });

  it('every spelling of the same local X server is the same display', () => {
    for (const spelling of [':5', ':5.0', ':5.1', 'localhost:5', 'unix:5', '127.0.0.1:5.0']) {
      expect(sameDisplay(spelling, ':5'), spelling).toBe(true);
      expect(() => chooseReplayDisplay({ display: spelling }, { DISPLAY: 'unix:5' })).toThrow(
        /refusing to replay/,
      );
    }
  });
});

/** A fake driver whose n-th grab shows `screens[n]` (the last one after that). */
class ScreenDriver implements ReplayDriver {
  calls: string[] = [];
  pointerAt = { x: 1, y: 1 };
  saved: string[] = [];
  closed = false;
  after: (op: string, d: ScreenDriver) => void = () => undefined;
  private grabs = 0;
  constructor(
    private readonly screen: { width: number; height: number },
    private readonly screens: Thumbnail[],
  ) {}
  private note(op: string) {
    this.calls.push(op);
    this.after(op, this);
    return Promise.resolve();
  }
  hello() {
    return Promise.resolve({ ...this.screen, pointer: { ...this.pointerAt }, version: 1 });
  }
  async pointer() {
    const p = { ...this.pointerAt };
    await this.note('pointer');
    return p;
  }
  async grab() {
    const thumbnail = this.screens[Math.min(this.grabs++, this.screens.length - 1)]!;
    await this.note('grab');
    return { thumbnail, grabMs: 1 };
  }
  async saveLastGrab(file: string) {
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, 'png');
    this.saved.push(file);
    await this.note('save');
  }
  async move(x: number, y: number) {
    this.pointerAt = { x, y };
    await this.note('move');
  }
  button = () => this.note('button');
  click = () => this.note('click');
  scroll = () => this.note('scroll');
  type = () => this.note('type');
  keys = () => this.note('keys');
  close() {
    this.closed = true;
    return Promise.resolve();
  }
}

const FAST = { minSettleMs: 0, maxSettleMs: 0, hoverMs: 0, pollMs: 1, dragMoves: 1 };

describe('replayRecording on the example recording (fake driver)', () => {
  let lib: Library;
  let id = '';
  let cleanup = () => undefined as void;
  let recDir = '';
  let screen = { width: 0, height: 0 };
  /** Per step, then the end state: the keyframe's thumbnail (null: none stored). */
  let keyframes: (Thumbnail | null)[] = [];
  let stepCount = 0;

  beforeAll(async () => {
    ({ lib, id, cleanup } = await exampleLibrary());
    const rec = getRecording(lib.db, id);
    recDir = lib.resolve(rec.dir);
    screen = { width: rec.screen.width, height: rec.screen.height };
    const { steps, rows } = keyframeStaleness(lib, rec.seq);
    stepCount = steps.length;
    const thumb = (file: string | null | undefined) => {
      if (file === undefined || file === null) {
        return null;
      }
      const png = decodePng(fs.readFileSync(lib.resolve(file)));
      return grayThumbnail(png.rgb, png.width, png.height);
    };
    keyframes = [
      ...steps.map((s) => thumb(rows.get(s.id)?.path)),
      thumb(rows.get(TERMINATE_KEYFRAME_ID)?.path),
    ];
  }, 180_000);
  afterAll(() => cleanup());

  const white = () => grayThumbnail(new Uint8Array(16 * 10 * 3).fill(255), 16, 10);
  /** The screens of a faithful replay: each measurement shows its keyframe. */
  const faithful = () => keyframes.map((k) => k ?? white());

  const replay = (driver: ScreenDriver, options: ReplayOptions = {}) =>
    replayRecording(lib, id, {
      display: ':77',
      env: { DISPLAY: ':5' },
      elements: false,
      stopHotkey: false,
      speed: 100,
      timing: FAST,
      startDriver: (display, env) => {
        expect(display).toBe(':77');
        expect(env.DISPLAY).toBe(':77');
        return Promise.resolve(driver);
      },
      ...options,
    });

  it('the example has steps and keyframes for all of them', () => {
    expect(stepCount).toBeGreaterThan(3);
    expect(keyframes.slice(0, -1).every((k) => k !== null)).toBe(true);
  });

  it('a faithful replay: every result ok, score 1; the report is stored and is the newest', async () => {
    const driver = new ScreenDriver(screen, faithful());
    const progress: [number, number][] = [];
    const report = await replay(driver, {
      onResult: (r, total) => progress.push([r.index, total]),
    });
    expect(Object.keys(report).sort()).toEqual(
      [
        'id',
        'runId',
        'startedAt',
        'display',
        'speed',
        'screen',
        'recordedScreen',
        'steps',
        'score',
        'firstDivergent',
        'stepCount',
        'stopped',
        'durationMs',
        'warnings',
      ].sort(),
    );
    const endOk = keyframes.at(-1) !== null;
    expect(report).toMatchObject({
      id,
      display: ':77',
      speed: 100,
      screen,
      recordedScreen: screen,
      stepCount,
      stopped: null,
      warnings: [],
    });
    expect(report.steps).toHaveLength(stepCount + 1);
    expect(report.steps.map((s) => s.index)).toEqual([...Array(stepCount + 1).keys()]);
    expect(report.steps.at(-1)!.kind).toBe('end');
    expect(report.steps.slice(0, -1).every((s) => s.ok && s.screenDiff === 0)).toBe(true);
    expect(report.steps.every((s) => s.elementMatch === null)).toBe(true);
    expect(report.steps.slice(0, -1).every((s) => s.keyframe !== null)).toBe(true);
    expect(fs.existsSync(path.join(recDir, report.steps[0]!.keyframe!))).toBe(true);
    expect(report.score).toBe(endOk ? 1 : stepCount / (stepCount + 1));
    expect(report.firstDivergent).toBe(endOk ? null : stepCount);
    expect(progress).toEqual(report.steps.map((s) => [s.index, stepCount + 1]));
    expect(driver.closed).toBe(true);
    // at least one action was driven
    expect(driver.calls.some((c) => ['click', 'type', 'keys', 'scroll'].includes(c))).toBe(true);

    const stored = JSON.parse(
      fs.readFileSync(path.join(recDir, REPLAY_DIR, report.runId, REPLAY_REPORT_FILE), 'utf8'),
    ) as ReplayReport;
    expect(stored).toEqual(report);
    expect(fs.readdirSync(path.join(recDir, REPLAY_DIR, report.runId))).toEqual([
      REPLAY_REPORT_FILE,
    ]);
    expect(await lastReplayReport(lib, id)).toEqual(report);
  });

  it('a divergent step: its index, its screenshot saved in the run folder; lastReplayReport is the newer run', async () => {
    const screens = faithful();
    const k = 2;
    // another step's keyframe where step k's is expected
    screens[k] = keyframes.find((t, i) => i !== k && t !== null)!;
    const driver = new ScreenDriver(screen, screens);
    const report = await replay(driver);
    expect(report.firstDivergent).toBe(k);
    const step = report.steps[k]!;
    expect(step.ok).toBe(false);
    expect(step.screenDiff).toBeGreaterThan(0.02);
    expect(step.screenshot).toBe(
      `${REPLAY_DIR}/${report.runId}/step-${String(k).padStart(3, '0')}.png`,
    );
    expect(fs.readFileSync(path.join(recDir, step.screenshot!), 'utf8')).toBe('png');
    expect(report.steps.filter((s) => s.screenshot !== null)).toHaveLength(
      report.steps.filter((s) => !s.ok).length,
    );
    expect(report.score).toBeLessThan(1);
    const last = await lastReplayReport(lib, id);
    expect(last?.runId).toBe(report.runId);
    expect(fs.readdirSync(path.join(recDir, REPLAY_DIR)).length).toBeGreaterThanOrEqual(2);
  });

  it('a run stopped by the user: stopped, firstDivergent at the stop, steps after it not reached', async () => {
    const driver = new ScreenDriver(screen, faithful());
    let grabs = 0;
    driver.after = (op, d) => {
      if (op === 'grab' && ++grabs === 2) {
        d.pointerAt = { x: 3, y: 3 };
      }
    };
    const report = await replay(driver);
    expect(report.stopped).toMatchObject({
      reason: 'user-input',
      stepIndex: 1,
      pointer: { x: 3, y: 3 },
    });
    expect(report.steps.map((s) => s.index)).toEqual([0, 1]);
    // both measured steps matched: the first result not reached is the first divergent one
    expect(report.steps.map((s) => s.ok)).toEqual([true, true]);
    expect(report.firstDivergent).toBe(1);
    expect(report.score).toBeCloseTo(2 / (stepCount + 1));
    expect(await lastReplayReport(lib, id)).toEqual(report);
  });

  it('a caller abort: stopped as cancelled', async () => {
    const controller = new AbortController();
    const driver = new ScreenDriver(screen, faithful());
    driver.after = (op) => {
      if (op === 'grab') {
        controller.abort('cancelled');
      }
    };
    const report = await replay(driver, { signal: controller.signal });
    expect(report.stopped).toMatchObject({ reason: 'cancelled', stepIndex: 0 });
  });

  it('speed outside (0, 100] or not a number: USAGE before any driver starts', async () => {
    for (const speed of [0, -1, 101, Number.NaN, Number.POSITIVE_INFINITY]) {
      let started = false;
      await expect(
        replay(new ScreenDriver(screen, faithful()), {
          speed,
          startDriver: () => {
            started = true;
            return Promise.resolve(new ScreenDriver(screen, []));
          },
        }),
        String(speed),
      ).rejects.toMatchObject({ code: 'USAGE', message: expect.stringMatching(/speed/) });
      expect(started).toBe(false);
    }
  });

  it('the live display or no display: refused before any driver starts', async () => {
    await expect(
      replay(new ScreenDriver(screen, []), { display: ':5.0', env: { DISPLAY: ':5' } }),
    ).rejects.toMatchObject({ code: 'REPLAY_LIVE_DISPLAY' });
    await expect(
      replay(new ScreenDriver(screen, []), { display: undefined, env: {} }),
    ).rejects.toMatchObject({ code: 'REPLAY_NO_DISPLAY' });
  });

  it('a recording without steps: REPLAY_NOTHING with the fix; never replayed: no last report', async () => {
    const empty = makeRecording(lib.db);
    let started = false;
    await expect(
      replayRecording(lib, empty.id, {
        display: ':77',
        env: {},
        elements: false,
        stopHotkey: false,
        startDriver: () => {
          started = true;
          return Promise.resolve(new ScreenDriver(screen, []));
        },
      }),
    ).rejects.toMatchObject({ code: 'REPLAY_NOTHING', fix: expect.stringMatching(/reduce/) });
    expect(started).toBe(false);
    expect(await lastReplayReport(lib, empty.id)).toBeNull();
  });

  it("masks the pointers in the keyframe's pixels (the video is scaled from the recorded screen)", async () => {
    const rec = getRecording(lib.db, id);
    const video = rec.videos[0]!;
    // the example: 1366×768 recorded into a 1276×718 video
    expect([video.width, video.height]).not.toEqual([rec.screen.width, rec.screen.height]);
    const { steps, rows } = keyframeStaleness(lib, rec.seq);
    // the pointer step furthest right: there the two pixel spaces differ most
    const k = steps.reduce(
      (best, s, i) => ((s.coordinate?.x ?? -1) > (steps[best]!.coordinate?.x ?? -1) ? i : best),
      0,
    );
    const c = steps[k]!.coordinate!;
    expect(c.x).toBeGreaterThan(900);
    const png = decodePng(fs.readFileSync(lib.resolve(rows.get(steps[k]!.id)!.path!)));
    /** The keyframe with a dark 24×36 "cursor" whose hotspot is at (x, y), video pixels. */
    const withCursor = (x: number, y: number) => {
      const rgb = Buffer.from(png.rgb);
      for (let yy = Math.round(y); yy < Math.round(y) + 36 && yy < png.height; yy++) {
        for (let xx = Math.round(x); xx < Math.round(x) + 24 && xx < png.width; xx++) {
          rgb.fill(0, (yy * png.width + xx) * 3, (yy * png.width + xx) * 3 + 3);
        }
      }
      return grayThumbnail(rgb, png.width, png.height);
    };
    const at = {
      x: (c.x * video.width) / rec.screen.width,
      y: (c.y * video.height) / rec.screen.height,
    };
    const screens = faithful();
    screens[k] = withCursor(at.x, at.y);
    const masked = await replay(new ScreenDriver(screen, screens));
    expect(masked.steps[k]!.screenDiff).toBe(0);
    // the same cursor away from every pointer is seen
    screens[k] = withCursor(at.x - 400, at.y);
    const seen = await replay(new ScreenDriver(screen, screens));
    expect(seen.steps[k]!.screenDiff).toBeGreaterThan(0);
  });

  it('an unknown id: an AppError, no driver started', async () => {
    let started = false;
    const error = await replayRecording(lib, 'ffffffff-nope', {
      display: ':77',
      env: {},
      startDriver: () => {
        started = true;
        return Promise.resolve(new ScreenDriver(screen, []));
      },
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AppError);
    expect((error as AppError).code).toBe('NOT_FOUND');
    expect(started).toBe(false);
  });
});
