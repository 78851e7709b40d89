// InputHook against a scripted fake child (no display needed): malformed output is a diagnostic,
// never a crash; start timeouts, lost lines, crash loops and a child that ignores shutdown are
// handled with coded errors and gaps.
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { InputHook } from '../../../src/recorder/input/hook-process';
import type {
  InputGap,
  InputHookDiagnostic,
  InputHookOptions,
} from '../../../src/recorder/input/hook-process';
import { US_KEYBOARD_LAYOUT } from '../../../src/recorder/input/keyboard-layout';
import type { InputEvent } from '../../../src/recorder/input/normalize-input-event';
import { AppError } from '../../../src/shared/errors';
import { waitFor } from './x-server';

const FAKE_HOOK = path.join(import.meta.dirname, 'fixtures', 'fake-hook.mjs');

function fakeHook(mode: string, options: Partial<InputHookOptions> = {}) {
  const events: InputEvent[] = [];
  const diagnostics: InputHookDiagnostic[] = [];
  const gaps: InputGap[] = [];
  const fatal: AppError[] = [];
  const hook = new InputHook({
    childCommand: { command: process.execPath, args: [FAKE_HOOK, mode] },
    shouldCheckPreconditions: false,
    keyboardLayout: US_KEYBOARD_LAYOUT,
    onEvents: (batch) => events.push(...batch),
    onDiagnostic: (diagnostic) => diagnostics.push(diagnostic),
    onGap: (gap) => gaps.push(gap),
    onFatal: (error) => fatal.push(error),
    ...options,
  });
  return { hook, events, diagnostics, gaps, fatal };
}

describe('InputHook with a fake child', () => {
  it('reports malformed lines as protocol errors and keeps the valid events', async () => {
    const h = fakeHook('malformed');
    const info = await h.hook.start();
    expect(info.capabilities).toEqual(['fake']);
    expect(await waitFor(() => h.events.length === 3)).toBe(true);
    const result = await h.hook.stop();

    expect(h.events.map((e) => [e.kind, e.x, e.y])).toEqual([
      ['move', 1, 1],
      ['move', 2, 2],
      ['move', 3, 3],
    ]);
    const problems = h.diagnostics
      .filter((d) => d.code === 'HELPER_PROTOCOL_ERROR')
      .map((d) => d.details?.problem);
    expect(problems).toEqual([
      'not JSON',
      'not a JSON object',
      'event line without an e object',
      'unknown e.type 99',
      'unknown line type "mystery"',
      'line of type "event" without a numeric t',
    ]);
    expect(result.protocolErrorCount).toBe(6);
    // the heartbeat's count matched: nothing reported as lost
    expect(h.diagnostics.some((d) => d.code === 'HOOK_EVENTS_LOST')).toBe(false);
  });

  it('reports events the child wrote but the parent never received', async () => {
    const h = fakeHook('lossy');
    await h.hook.start();
    expect(await waitFor(() => h.diagnostics.some((d) => d.code === 'HOOK_EVENTS_LOST'))).toBe(
      true,
    );
    await h.hook.stop();
    const lost = h.diagnostics.find((d) => d.code === 'HOOK_EVENTS_LOST');
    expect(lost?.details).toEqual({ sent: 5, received: 2 });
  });

  it('rejects start() with HELPER_START_TIMEOUT when no hello comes', async () => {
    // long enough for Node to start and write its stderr line on a loaded machine (measured
    // 0.6–0.8 s at a load average of 18 on 2 cores)
    const h = fakeHook('silent', { startTimeoutMs: 2000 });
    let error: unknown = null;
    try {
      await h.hook.start();
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(AppError);
    expect((error as AppError).code).toBe('HELPER_START_TIMEOUT');
    expect((error as AppError).message).toMatch(/no hello within 2000 ms.*staying silent/);
    expect(h.hook.state).toBe('failed');
  });

  it('gives up after bounded restarts of a crashing child and reports an open gap', async () => {
    const h = fakeHook('crash', { maxRestarts: 3, restartBackoffMs: 10 });
    await h.hook.start();
    expect(await waitFor(() => h.fatal.length === 1, 10_000)).toBe(true);
    expect(h.hook.state).toBe('failed');
    await h.hook.stop();

    expect(h.fatal[0]!.code).toBe('INPUT_HOOK_FAILED');
    // three restarts came up (and crashed again): three closed gaps, then one left open
    expect(h.gaps.map((gap) => gap.endMs === null)).toEqual([false, false, false, true]);
    expect(h.gaps.every((gap) => gap.reason === 'child-exit')).toBe(true);
    expect(h.gaps[0]!.detail).toMatch(/exit code 3.*crashing/);
  });

  it('escalates to SIGTERM and SIGKILL when the child ignores the shutdown', async () => {
    const h = fakeHook('stubborn', { stopGraceMs: 200 });
    await h.hook.start();
    const pid = h.hook.childPid!;
    const started = performance.now();
    await h.hook.stop();
    expect(performance.now() - started).toBeGreaterThanOrEqual(400);
    expect(() => process.kill(pid, 0)).toThrow();
    expect(h.gaps).toEqual([]);
  });

  it('lets stop() win over a start() still waiting for the hello', async () => {
    const h = fakeHook('silent');
    const starting = h.hook.start();
    expect(await waitFor(() => h.hook.childPid !== null)).toBe(true);
    const pid = h.hook.childPid!;
    await h.hook.stop();
    await expect(starting).rejects.toThrow(/stop\(\) was called while the hook was starting/);
    expect(h.hook.state).toBe('stopped');
    expect(() => process.kill(pid, 0)).toThrow();
  });
});
