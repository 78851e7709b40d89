// The review UI's replays (docs/replay.md §6) through the dispatcher: `replay:start` on the
// settings' display (refused when empty, when it is the services' own display, while another
// replay runs), `replay:status` with the results so far and the last report (media URLs for its
// images), `replay:cancel`. A fake replay function stands in for the nut-js run (the real one:
// tests/e2e/replay-ui.test.ts); answers are checked against the contract's output schemas.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { createServices, type Services } from '../../../src/services/create-services';
import type { ReplayOptions } from '../../../src/services/quality/replay-service';
import { validateMethodOutput, type ReplayStatusDto } from '../../../src/shared/contract';
import type { ReplayReport, ReplayStepResult } from '../../../src/shared/domain';
import { AppError } from '../../../src/shared/errors';
import { writeSettings } from '../../../src/services/settings/settings-service';
import { tempLibrary } from '../../helpers/library';
import { makeRecording } from '../../helpers/store';

const t = tempLibrary();
const a = makeRecording(t.lib.db);
const b = makeRecording(t.lib.db);
let services: Services | null = null;
afterEach(async () => {
  await services?.close();
  services = null;
});
afterAll(() => t.cleanup());

type Call = { id: string; options: ReplayOptions };

function result(index: number, ok: boolean, run = 'run-1'): ReplayStepResult {
  const pad = String(index).padStart(3, '0');
  return {
    index,
    kind: 'step',
    stepId: `s${index}`,
    screenDiff: ok ? 0.001 : 0.5,
    elementMatch: ok ? true : false,
    ok,
    recordedElement: { controlType: 'Button', title: 'OK' },
    liveElement: ok ? { controlType: 'Button', title: 'OK' } : null,
    actionPoint: { x: 1, y: 2 },
    note: null,
    screenshot: ok ? null : `replay/${run}/step-${pad}.png`,
    keyframe: `keyframes/step-${pad}.png`,
    measureMs: 1,
    driveMs: 1,
  };
}

function report(id: string, steps: ReplayStepResult[], extra: Partial<ReplayReport> = {}) {
  return {
    id,
    runId: 'run-1',
    startedAt: '2026-12-02T10:00:00.000Z',
    display: ':99',
    speed: 1,
    screen: { width: 1280, height: 800 },
    recordedScreen: { width: 1280, height: 800 },
    steps,
    score: steps.filter((s) => s.ok).length / 3,
    firstDivergent: steps.find((s) => !s.ok)?.index ?? null,
    stepCount: 2,
    stopped: null,
    durationMs: 10,
    warnings: [],
    ...extra,
  } satisfies ReplayReport;
}

/** A fake replay the test releases step by step: `results` one at a time, then the report. */
function controlledReplay(steps = [result(0, true), result(1, false)]) {
  const calls: Call[] = [];
  const gates: (() => void)[] = [];
  const next = () => new Promise<void>((resolve) => gates.push(resolve));
  const replay = async (_lib: unknown, id: string, options: ReplayOptions) => {
    calls.push({ id, options });
    for (const s of steps) {
      await Promise.race([
        next(),
        new Promise<void>((resolve) =>
          options.signal?.addEventListener('abort', () => resolve(), { once: true }),
        ),
      ]);
      if (options.signal?.aborted) {
        return report(id, steps.slice(0, s.index), {
          stopped: { reason: 'cancelled', stepIndex: s.index, message: 'the replay was cancelled' },
        });
      }
      options.onResult?.(s, 3);
    }
    return report(id, steps);
  };
  const release = async () => {
    for (let i = 0; i < 100 && gates.length === 0; i++) {
      await new Promise((r) => setTimeout(r, 5));
    }
    gates.shift()?.();
    await new Promise((r) => setTimeout(r, 5));
  };
  return { calls, replay, release };
}

function start(options: Parameters<typeof createServices>[1]['replayJobs'], env = {}) {
  services = createServices(t.lib, {
    appVersion: '0.0.0-test',
    mediaUrl: (id, kind, name) => `/media/${id}/${kind}/${name ?? ''}`,
    log: () => undefined,
    env,
    ...(options ? { replayJobs: options } : {}),
  });
  return services;
}

async function call(s: Services, method: string, payload: unknown) {
  const r = await s.dispatch(method, payload);
  if (r.ok) {
    const checked = validateMethodOutput(method as 'replay:status', r.value);
    expect(checked.ok ? null : checked, method).toBeNull();
  }
  return r;
}

async function status(s: Services, id: string): Promise<ReplayStatusDto> {
  const r = await call(s, 'replay:status', { id });
  if (!r.ok) {
    throw new Error(r.error.message);
  }
  return r.value as ReplayStatusDto;
}

async function setDisplay(s: Services, display: string) {
  const r = await s.dispatch('settings:set', { replayDisplay: display });
  expect(r.ok).toBe(true);
}

describe('replay jobs', () => {
  it('with the setting empty, start is refused with a fix naming the setting', async () => {
    const fake = controlledReplay();
    const s = start({ replay: fake.replay });
    await setDisplay(s, '');
    const r = await call(s, 'replay:start', { id: a.id });
    expect(r.ok).toBe(false);
    if (!r.ok) {
      expect(r.error.code).toBe('REPLAY_NO_DISPLAY');
      expect(r.error.fix).toMatch(/Settings → Replay display/);
    }
    expect(fake.calls).toEqual([]);
    const st = await status(s, a.id);
    expect(st).toMatchObject({ display: '', running: false, report: null, results: [] });
  });

  it("refuses the services' own display (no live replay from the UI)", async () => {
    const fake = controlledReplay();
    const s = start({ replay: fake.replay }, { DISPLAY: ':5' });
    // settings:set refuses it (issue 26 item 7); a value saved before (or by a host on another
    // display) is refused when the replay starts
    const refused = await s.dispatch('settings:set', { replayDisplay: ':5' });
    expect(!refused.ok && refused.error.code).toBe('REPLAY_LIVE_DISPLAY');
    writeSettings(t.lib, { replayDisplay: ':5' }, { cipher: null, libraryDir: null }, {});
    const r = await call(s, 'replay:start', { id: a.id });
    expect(!r.ok && r.error.code).toBe('REPLAY_LIVE_DISPLAY');
    expect(fake.calls).toEqual([]);
  });

  it('runs in the background: results so far, one run at a time, then the report', async () => {
    const fake = controlledReplay();
    const s = start({ replay: fake.replay, timing: { minSettleMs: 100 } }, { DISPLAY: ':5' });
    await setDisplay(s, ':99');
    const started = await call(s, 'replay:start', { id: a.id, speed: 4 });
    expect(started.ok && (started.value as ReplayStatusDto).running).toBe(true);
    expect(fake.calls).toHaveLength(1);
    const options = fake.calls[0]!.options;
    expect(options).toMatchObject({ display: ':99', live: false, speed: 4 });
    expect(options.timing).toEqual({ minSettleMs: 100 });
    expect(options.signal?.aborted).toBe(false);

    await fake.release();
    let st = await status(s, a.id);
    expect(st).toMatchObject({ running: true, total: 3, busyWith: null, error: null });
    expect(st.results.map((r) => r.ok)).toEqual([true]);

    // a second start (this recording or another) is refused while it runs
    const again = await call(s, 'replay:start', { id: a.id });
    expect(!again.ok && again.error.code).toBe('INVALID_STATE');
    const otherStart = await call(s, 'replay:start', { id: b.id });
    expect(!otherStart.ok && otherStart.error.message).toContain(a.id);
    expect((await status(s, b.id)).busyWith).toBe(a.id);

    await fake.release();
    for (let i = 0; i < 100 && (await status(s, a.id)).running; i++) {
      await new Promise((r) => setTimeout(r, 10));
    }
    st = await status(s, a.id);
    expect(st.running).toBe(false);
    expect(st.report).toMatchObject({ runId: 'run-1', firstDivergent: 1, stepCount: 2 });
    expect(st.results.map((r) => r.ok)).toEqual([true, false]);
    const divergent = st.report!.steps[1]!;
    expect(divergent.screenshotUrl).toBe(`/media/${a.id}/replay/run-1/step-001.png`);
    expect(divergent.keyframeUrl).toBe(`/media/${a.id}/keyframe/step-001.png`);
    expect(st.report!.steps[0]!.screenshotUrl).toBeNull();
    // another may start now
    expect((await call(s, 'replay:start', { id: b.id })).ok).toBe(true);
  });

  it("a run's screenshots are linked once it has ended (its folder is renamed then)", async () => {
    const fake = controlledReplay([result(0, false), result(1, true)]);
    const s = start({ replay: fake.replay });
    await setDisplay(s, ':99');
    await call(s, 'replay:start', { id: a.id });
    await fake.release();
    const during = await status(s, a.id);
    expect(during.running).toBe(true);
    expect(during.results[0]).toMatchObject({ ok: false, screenshotUrl: null });
    expect(during.results[0]!.keyframeUrl).toBe(`/media/${a.id}/keyframe/step-000.png`);
    await fake.release();
    await s.context.replay.cancel(a.id); // waits for the end
    const after = await status(s, a.id);
    expect(after.results[0]!.screenshotUrl).toBe(`/media/${a.id}/replay/run-1/step-000.png`);
  });

  it('cancel stops the run and answers its report', async () => {
    const fake = controlledReplay();
    const s = start({ replay: fake.replay });
    await setDisplay(s, ':99');
    await call(s, 'replay:start', { id: a.id });
    await fake.release();
    const r = await call(s, 'replay:cancel', { id: a.id });
    if (!r.ok) {
      throw new Error(r.error.message);
    }
    const st = r.value as ReplayStatusDto;
    expect(st.running).toBe(false);
    expect(st.report?.stopped).toMatchObject({ reason: 'cancelled', stepIndex: 1 });
    expect(fake.calls[0]!.options.signal?.aborted).toBe(true);
    // cancelling when nothing runs is harmless
    expect((await call(s, 'replay:cancel', { id: b.id })).ok).toBe(true);
  });

  it("a failed run's error (code, message, fix) is in the status until the next start", async () => {
    const s = start({
      replay: () =>
        Promise.reject(
          new AppError('REPLAY_DRIVER_FAILED', 'no X server on :99', undefined, 'start Xvfb :99'),
        ),
    });
    await setDisplay(s, ':99');
    await call(s, 'replay:start', { id: a.id });
    await new Promise((r) => setTimeout(r, 20));
    const st = await status(s, a.id);
    expect(st).toMatchObject({
      running: false,
      error: { code: 'REPLAY_DRIVER_FAILED', message: 'no X server on :99', fix: 'start Xvfb :99' },
    });
    expect((await status(s, b.id)).error).toBeNull();
  });

  it('the last stored report is answered when this session ran none', async () => {
    const s = start({});
    const runDir = path.join(t.dir, 'recordings', b.id, 'replay', 'run-1');
    fs.mkdirSync(runDir, { recursive: true });
    // an older report without `warnings` reads too
    const { warnings: _w, ...old } = report(b.id, [result(0, false), result(1, true)]);
    fs.writeFileSync(path.join(runDir, 'report.json'), JSON.stringify(old));
    const st = await status(s, b.id);
    expect(st.report).toMatchObject({ runId: 'run-1', firstDivergent: 0, warnings: [] });
    expect(st.report!.steps[0]!.screenshotUrl).toBe(`/media/${b.id}/replay/run-1/step-000.png`);
    expect(st.results).toEqual([]);
    fs.rmSync(path.join(t.dir, 'recordings', b.id, 'replay'), { recursive: true });
  });

  it('close() cancels the run under way', async () => {
    const fake = controlledReplay();
    const s = start({ replay: fake.replay });
    await setDisplay(s, ':99');
    await call(s, 'replay:start', { id: a.id });
    await s.close();
    expect(fake.calls[0]!.options.signal?.aborted).toBe(true);
    expect(s.context.replay.isRunning).toBe(false);
  });

  it('an unknown recording is NOT_FOUND', async () => {
    const s = start({});
    for (const method of ['replay:start', 'replay:status', 'replay:cancel']) {
      const r = await call(s, method, { id: 'nope' });
      expect(!r.ok && r.error.code, method).toBe('NOT_FOUND');
    }
  });
});
