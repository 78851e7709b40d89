import '../helpers/setup';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { ReplayResultDto, ReplayStatusDto } from '../../../src/shared/contract';
import {
  REPLAY_POLL_MS,
  replaySelectors,
  screenDiffText,
  useReplayStore,
} from '../../../src/renderer/store/replay';
import { FakeFailure, flush, installFakeApi } from '../helpers/fake-api';

const state = () => useReplayStore.getState();

afterEach(() => {
  vi.useRealTimers();
});

function result(index: number, ok: boolean, kind: 'step' | 'end' = 'step'): ReplayResultDto {
  return {
    index,
    kind,
    stepId: kind === 'end' ? null : `s${index}`,
    screenDiff: ok ? 0 : 0.25,
    elementMatch: ok ? null : false,
    ok,
    masked: false,
    recordedElement: ok ? null : { controlType: 'Button', title: 'OK' },
    liveElement: null,
    note: null,
    screenshotUrl: ok ? null : `/media/a/replay/r/step-00${index}.png`,
    keyframeUrl: `/media/a/keyframe/k${index}.png`,
  };
}

function status(patch: Partial<ReplayStatusDto> = {}): ReplayStatusDto {
  return {
    display: ':99',
    running: false,
    busyWith: null,
    results: [],
    total: 0,
    report: null,
    error: null,
    ...patch,
  };
}

function report(steps: ReplayResultDto[]): NonNullable<ReplayStatusDto['report']> {
  return {
    runId: 'r',
    startedAt: '2026-12-02T10:00:00.000Z',
    display: ':99',
    speed: 1,
    score: steps.filter((s) => s.ok).length / steps.length,
    firstDivergent: steps.find((s) => !s.ok)?.index ?? null,
    stepCount: steps.length - 1,
    stopped: null,
    durationMs: 100,
    warnings: [],
    steps,
  };
}

describe('useReplayStore', () => {
  it('load shows the last report: results by step, the first divergent one selected', async () => {
    const api = installFakeApi();
    const last = report([result(0, true), result(1, false), result(2, false, 'end')]);
    api.on('replay:status', () => status({ report: last }));
    await state().load('a');
    expect(api.calls).toEqual([{ method: 'replay:status', payload: { id: 'a' } }]);
    expect(state().loadStatus).toBe('ready');
    expect(replaySelectors.isEnabled(state())).toBe(true);
    expect(replaySelectors.results(state()).map((r) => r.ok)).toEqual([true, false, false]);
    // the end state has no step: no badge
    expect([...replaySelectors.byStep(state()).keys()]).toEqual(['s0', 's1']);
    expect(replaySelectors.ofStep(state(), 's1')?.ok).toBe(false);
    expect(replaySelectors.selected(state())?.index).toBe(1);
    state().select(0);
    expect(replaySelectors.selected(state())?.index).toBe(0);
    expect(replaySelectors.progress(state())).toBeNull();
  });

  it('with the setting empty, replay is off', async () => {
    const api = installFakeApi();
    api.on('replay:status', () => status({ display: '' }));
    await state().load('a');
    expect(replaySelectors.isEnabled(state())).toBe(false);
  });

  it('start sends the pace, polls while running, and stops polling when it ends', async () => {
    vi.useFakeTimers();
    const api = installFakeApi();
    let answer = status({ running: true, total: 3 });
    api.on('replay:status', () => answer);
    api.on('replay:start', () => answer);
    await state().load('a');
    state().setSpeed(5);
    await state().start('a');
    expect(api.calls.at(-1)).toEqual({ method: 'replay:start', payload: { id: 'a', speed: 5 } });
    expect(replaySelectors.progress(state())).toEqual({ done: 0, total: 3 });

    answer = status({ running: true, total: 3, results: [result(0, true)] });
    const before = api.calls.length;
    await vi.advanceTimersByTimeAsync(REPLAY_POLL_MS);
    expect(api.calls.length).toBe(before + 1);
    expect(replaySelectors.progress(state())).toEqual({ done: 1, total: 3 });
    expect(replaySelectors.ofStep(state(), 's0')?.ok).toBe(true);

    const steps = [result(0, true), result(1, false), result(2, true, 'end')];
    answer = status({ report: report(steps) });
    await vi.advanceTimersByTimeAsync(REPLAY_POLL_MS);
    expect(replaySelectors.isRunning(state())).toBe(false);
    expect(replaySelectors.selected(state())?.index).toBe(1);
    const after = api.calls.length;
    await vi.advanceTimersByTimeAsync(REPLAY_POLL_MS * 4);
    expect(api.calls.length).toBe(after); // no more polling
  });

  it('a refused start shows the error with its fix', async () => {
    const api = installFakeApi();
    api.on('replay:status', () => status({ display: ':0' }));
    api.on('replay:start', () => {
      throw new FakeFailure(
        'REPLAY_LIVE_DISPLAY',
        'refusing to replay on :0',
        undefined,
        'use :99',
      );
    });
    await state().load('a');
    await state().start('a');
    await flush();
    expect(state().error).toEqual({
      code: 'REPLAY_LIVE_DISPLAY',
      message: 'refusing to replay on :0',
      fix: 'use :99',
    });
    expect(state().busy).toBeNull();
  });

  it('cancel answers the status; another recording drops the state and its polling', async () => {
    vi.useFakeTimers();
    const api = installFakeApi();
    api.on('replay:status', (p) =>
      (p as { id: string }).id === 'a' ? status({ running: true, total: 2 }) : status(),
    );
    api.on('replay:cancel', () => status({ report: report([result(0, false)]) }));
    await state().load('a');
    await state().cancel('a');
    expect(api.methods().at(-1)).toBe('replay:cancel');
    expect(replaySelectors.isRunning(state())).toBe(false);
    expect(state().status?.report?.firstDivergent).toBe(0);

    api.on('replay:cancel', () => status({ running: true, total: 2 }));
    await state().load('a');
    await state().load('b');
    expect(state().recordingId).toBe('b');
    expect(state().status?.report).toBeNull();
    const calls = api.calls.length;
    await vi.advanceTimersByTimeAsync(REPLAY_POLL_MS * 3);
    expect(api.calls.length).toBe(calls); // the poll of 'a' was stopped
  });

  it('an answer about a recording no longer shown is dropped', async () => {
    const api = installFakeApi();
    api.on('replay:status', () => status({ report: report([result(0, false)]) }));
    api.hold();
    const loading = state().load('a');
    state().clear();
    await api.release();
    await loading;
    expect(state().status).toBeNull();
  });

  it('screen differences read as percentages', () => {
    expect(screenDiffText(0.1234)).toBe('12.3 %');
    expect(screenDiffText(null)).toBe('–');
  });
});
