// The native-helper adapter against a real child process: tests/fixtures/bin/fake-ax-helper.js.
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { AccessibilityGap } from '../../../src/axtree/adapter';
import type { NativeHelperAdapter } from '../../../src/axtree/platform/native-helper';
import type { HelperDisplay } from '../../../src/axtree/platform/helper-protocol';
import type { AxFocusEvent } from '../../../src/axtree/model';
import {
  NativeHelperProcess,
  createNativeHelperAdapter,
} from '../../../src/recorder/accessibility/native-helper-process';
import { isAppError } from '../../../src/shared/errors';
import type { ErrorCode } from '../../../src/shared/errors';
import { REPO_ROOT } from '../../helpers/paths';

const FAKE_HELPER = path.join(REPO_ROOT, 'tests/fixtures/bin/fake-ax-helper.js');

let clockMs = 1000;
const now = (): number => (clockMs += 1);
const started: NativeHelperAdapter[] = [];

function helper(
  mode = 'normal',
  extra: { startTimeoutMs?: number; requestTimeoutMs?: number } = {},
) {
  const adapter = createNativeHelperAdapter({
    command: process.execPath,
    args: [FAKE_HELPER, mode],
    now,
    stopGraceMs: 300,
    killGraceMs: 300,
    ...extra,
  });
  started.push(adapter);
  return adapter;
}

async function codeOf(promise: Promise<unknown>): Promise<{ code: ErrorCode; message: string }> {
  try {
    await promise;
  } catch (error) {
    if (isAppError(error)) {
      return { code: error.code, message: error.message };
    }
    throw error;
  }
  throw new Error('expected a rejection');
}

afterEach(async () => {
  await Promise.all(started.splice(0).map((a) => a.stop()));
});

describe('native helper protocol over a child process', () => {
  it('resolves start on the v2 hello line with its capabilities and helper', async () => {
    const adapter = helper();
    await expect(adapter.start()).resolves.toEqual({
      backend: 'native-helper',
      capabilities: [
        'elementAt',
        'snapshot',
        'secure',
        'focusEvents',
        'activeWindow',
        'displays',
        'permissions',
      ],
    });
    expect(adapter.capabilities).toContain('secure');
    expect(adapter.helper).toMatchObject({ name: 'fake-ax-helper', os: process.platform });
    expect(adapter.helper?.pid).toBeGreaterThan(0);
  });

  it('answers activeWindow, displays and permissions, negative coordinates kept', async () => {
    const adapter = helper();
    await adapter.start();
    await expect(adapter.activeWindow()).resolves.toMatchObject({
      title: 'Fake Window',
      app: 'fake-app',
      bounds: { x: -1900, y: 200, width: 800, height: 600 },
      windowId: '0x1234',
    });
    const displays = await adapter.displays();
    expect(displays.map((d) => [d.id, d.bounds.x, d.scale, d.primary])).toEqual([
      ['1', 0, 1.5, true],
      ['2', -1920, 1, false],
    ]);
    await expect(adapter.permissions()).resolves.toEqual({
      accessibility: 'granted',
      screenRecording: 'granted',
      inputMonitoring: 'not-required',
    });
    const changes: HelperDisplay[][] = [];
    adapter.onDisplaysChanged((d) => changes.push(d));
    await adapter.request('displaysChange');
    expect(changes).toEqual([[displays[0]]]);
  });

  it('matches concurrent responses to their requests', async () => {
    const adapter = helper();
    await adapter.start();
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) => adapter.request('echo', { i })),
    );
    expect(results).toEqual(Array.from({ length: 20 }, (_, i) => ({ i })));
  });

  it('maps elementAt, snapshot and focusedIsSecure onto the model, stamped by our clock', async () => {
    const adapter = helper();
    await adapter.start();
    const record = await adapter.elementAt(15, 25);
    expect(record).toMatchObject({ x: 15, y: 25, app: 'fake-app', isSecure: false });
    expect(record?.tMs).toBeGreaterThan(1000);
    expect(record?.path.map((n) => n.role)).toEqual(['push button', 'frame']);
    await expect(adapter.elementAt(-1, 0)).resolves.toBeNull();

    const snapshot = await adapter.snapshotFocusedWindow({ maxNodes: 50 });
    expect(snapshot).toMatchObject({ nodeCount: 3, truncated: false, app: 'fake-app' });
    expect(snapshot.durationMs).toBeGreaterThan(0);
    const small = await adapter.snapshotFocusedWindow({ maxNodes: 1 });
    expect(small).toMatchObject({ nodeCount: 1, truncated: true, note: 'node budget 1 reached' });
    expect(small.root?.childCount).toBe(2);

    await expect(adapter.focusedIsSecure()).resolves.toBe(false);
  });

  it('turns focus events into AxFocusEvents and ignores unknown events', async () => {
    const adapter = helper();
    await adapter.start();
    const events: AxFocusEvent[] = [];
    adapter.onFocusChanged((e) => events.push(e));
    await adapter.request('focusPassword');
    await expect(adapter.focusedIsSecure()).resolves.toBe(true);
    await adapter.request('focusName');
    await expect(adapter.focusedIsSecure()).resolves.toBe(false);
    // the helper's isSecure flag masks an EditControl, and the name it leaked is dropped
    expect(events.map(({ role, name, isSecure }) => ({ role, name, isSecure }))).toEqual([
      { role: 'EditControl', name: '', isSecure: true },
      { role: 'text', name: 'Name', isSecure: false },
    ]);
  });

  it('reports helper errors with their code, mapping our own codes through', async () => {
    const adapter = helper();
    await adapter.start();
    const failed = await codeOf(adapter.request('fail'));
    expect(failed.code).toBe('HELPER_REQUEST_FAILED');
    expect(failed.message).toContain('not trusted');
    expect((await codeOf(adapter.request('unavailable'))).code).toBe('ACCESSIBILITY_UNAVAILABLE');
    expect((await codeOf(adapter.request('denied'))).code).toBe('PERMISSION_DENIED');
    expect((await codeOf(adapter.request('noSuchMethod'))).code).toBe('HELPER_UNKNOWN_METHOD');
    // the helper stays usable after an error response
    await expect(adapter.request('echo', 1)).resolves.toBe(1);
  });

  it('rejects a result of the wrong shape without dropping the helper', async () => {
    const adapter = helper();
    await adapter.start();
    const bad = await codeOf(adapter.elementAt(999, 0));
    expect(bad.code).toBe('HELPER_PROTOCOL_ERROR');
    expect(bad.message).toContain("'elementAt' returned an invalid result: result.path[0].role");
    await expect(adapter.request('echo', 2)).resolves.toBe(2);
  });

  it('treats a malformed line as a protocol error that fails pending and later calls', async () => {
    const adapter = helper();
    await adapter.start();
    const pending = adapter.request('slow', { ms: 2000 });
    const garbage = adapter.request('garbage');
    const first = await codeOf(pending);
    expect(first.code).toBe('HELPER_PROTOCOL_ERROR');
    expect(first.message).toContain('this is not json');
    expect((await codeOf(garbage)).code).toBe('HELPER_PROTOCOL_ERROR');
    expect((await codeOf(adapter.elementAt(1, 1))).code).toBe('HELPER_PROTOCOL_ERROR');
  });

  it('rejects pending calls with HELPER_EXITED and the stderr tail when the helper dies', async () => {
    const adapter = helper();
    await adapter.start();
    const pending = adapter.request('slow', { ms: 5000 });
    const exit = adapter.request('exit', { code: 3 });
    const error = await codeOf(pending);
    expect(error.code).toBe('HELPER_EXITED');
    expect(error.message).toContain('exit code 3');
    expect(error.message).toContain('fake-ax-helper: exiting with 3');
    expect((await codeOf(exit)).code).toBe('HELPER_EXITED');
    expect((await codeOf(adapter.focusedIsSecure())).code).toBe('HELPER_EXITED');
  });

  it('times out a slow request but keeps the helper and ignores the late answer', async () => {
    const adapter = helper('normal', { requestTimeoutMs: 100 });
    await adapter.start();
    const slow = await codeOf(adapter.request('slow', { ms: 300 }));
    expect(slow.code).toBe('ACCESSIBILITY_TIMEOUT');
    await new Promise((r) => setTimeout(r, 400));
    await expect(adapter.request('echo', 'still here')).resolves.toBe('still here');
  });

  it('replaces a helper stuck in an OS call after 3 timeouts in a row and reports the gap', async () => {
    const adapter = helper('normal', { requestTimeoutMs: 200 });
    const gaps: AccessibilityGap[] = [];
    adapter.onGap((g) => gaps.push(g));
    await adapter.start();
    const stuckPid = adapter.helper?.pid as number;
    const stuck = await Promise.all([
      codeOf(adapter.request('freeze')),
      codeOf(adapter.request('echo', 1)),
      codeOf(adapter.request('echo', 2)),
    ]);
    expect(stuck.map((e) => e.code)).toEqual([
      'ACCESSIBILITY_TIMEOUT',
      'ACCESSIBILITY_TIMEOUT',
      'ACCESSIBILITY_TIMEOUT',
    ]);
    // the next request waits for the replacement and gets its answer
    await expect(adapter.request('echo', 'after')).resolves.toBe('after');
    expect(adapter.restartCount).toBe(1);
    expect(adapter.helper?.pid).not.toBe(stuckPid);
    expect(gaps).toHaveLength(1);
    expect(gaps[0]).toMatchObject({ reason: 'helper-timeouts' });
    expect(gaps[0]?.detail).toMatch(/3 requests in a row got no answer.*helper restarted/);
    expect(gaps[0]?.endMs).toBeGreaterThan(gaps[0]?.startMs as number);
    await expect(adapter.elementAt(15, 25)).resolves.toMatchObject({ app: 'fake-app' });
    await adapter.stop();
    // the frozen helper ignored its shutdown line: the stop escalated to a signal
    expect(() => process.kill(stuckPid, 0)).toThrow();
  });

  it.each([
    ['silent', 'HELPER_START_TIMEOUT', /no hello line within 300 ms/],
    ['chatty', 'HELPER_PROTOCOL_ERROR', /before its hello/],
    ['old-protocol', 'HELPER_PROTOCOL_ERROR', /protocol 1.*speaks 2/],
    ['bad-hello', 'HELPER_PROTOCOL_ERROR', /helper that is not \{name, os, pid\}/],
    ['exit-at-start', 'HELPER_EXITED', /exit code 7.*no accessibility permission/s],
  ])('start fails in mode %s with %s', async (mode, code, message) => {
    // only the silent helper should run into the start timeout; the others get time to boot
    const adapter = helper(mode, { startTimeoutMs: mode === 'silent' ? 300 : 10_000 });
    const error = await codeOf(adapter.start());
    expect(error.code).toBe(code);
    expect(error.message).toMatch(message);
  });

  it('fails to start a missing executable with a coded error', async () => {
    const adapter = createNativeHelperAdapter({ command: '/nonexistent/ax-helper', now });
    started.push(adapter);
    const error = await codeOf(adapter.start());
    expect(error.code).toBe('ACCESSIBILITY_UNAVAILABLE');
    expect(error.message).toMatch(/could not start accessibility helper \/nonexistent.*ENOENT/);
  });
});

describe('NativeHelperProcess.close', () => {
  it('ends a cooperative helper with the shutdown line (exit 0, no signal)', async () => {
    const proc = new NativeHelperProcess({ command: process.execPath, args: [FAKE_HELPER] });
    const exits: unknown[] = [];
    proc.onExit((e) => exits.push(e));
    await proc.open();
    await proc.close();
    expect(exits).toEqual([{ code: 0, signal: null, stderrTail: '', isExpected: true }]);
  });

  it('escalates to SIGKILL for a helper that ignores shutdown and SIGTERM', async () => {
    const proc = new NativeHelperProcess({
      command: process.execPath,
      args: [FAKE_HELPER, 'ignore-shutdown'],
      stopGraceMs: 200,
      killGraceMs: 200,
    });
    const exits: { signal: string | null; stderrTail: string }[] = [];
    proc.onExit((e) => exits.push(e));
    // its signal handler is installed once it says hello
    const hello = new Promise<void>((resolve) => proc.onLine(() => resolve()));
    await proc.open();
    await hello;
    const pid = proc.pid as number;
    const t0 = performance.now();
    await proc.close();
    expect(performance.now() - t0).toBeGreaterThanOrEqual(350);
    expect(exits[0]?.signal).toBe('SIGKILL');
    expect(exits[0]?.stderrTail).toContain('ignoring SIGTERM');
    expect(() => process.kill(pid, 0)).toThrow();
  });
});
