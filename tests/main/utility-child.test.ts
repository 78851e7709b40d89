// A utility process with the ChildProcess surface: output piped, stdin as messages, exit then
// close after the output ended, SIGTERM through kill(), SIGKILL to the pid.
import { EventEmitter } from 'node:events';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import type { UtilityProcess } from 'electron';
import { describe, expect, it, vi } from 'vitest';
import { CHILD_ENTRIES } from '../../src/infra/child-launcher';
import { utilityProcessLauncher } from '../../src/main/launcher';
import { STDIN_END_MESSAGE, STDIN_MESSAGE, UtilityChild } from '../../src/main/utility-child';

/** A scripted utility process. */
function fakeUtilityProcess() {
  const up = new EventEmitter() as EventEmitter & {
    pid: number | undefined;
    stdout: PassThrough;
    stderr: PassThrough;
    messages: unknown[];
    postMessage: (m: unknown) => void;
    kill: () => boolean;
    kills: number;
  };
  up.pid = 4242;
  up.stdout = new PassThrough();
  up.stderr = new PassThrough();
  up.messages = [];
  up.kills = 0;
  up.postMessage = (m) => up.messages.push(m);
  up.kill = () => ((up.kills += 1), true);
  return up;
}

const asUtility = (up: ReturnType<typeof fakeUtilityProcess>) => up as unknown as UtilityProcess;

describe('utility child', () => {
  it('pipes output, carries stdin as messages, and closes after the output ended', async () => {
    const up = fakeUtilityProcess();
    const child = new UtilityChild(asUtility(up));
    const seen: string[] = [];
    child.on('spawn', () => seen.push('spawn'));
    child.on('exit', (code) => seen.push(`exit ${code}`));
    child.on('close', (code) => seen.push(`close ${code}`));
    let out = '';
    child.stdout!.setEncoding('utf8');
    child.stdout!.on('data', (chunk: string) => (out += chunk));
    child.stderr!.on('data', () => undefined);
    up.emit('spawn');
    expect(child.pid).toBe(4242);

    child.stdin.write('{"id":"stop","method":"shutdown"}\n');
    child.stdin.end();
    await new Promise((r) => setImmediate(r));
    expect(up.messages).toEqual([
      { type: STDIN_MESSAGE, data: '{"id":"stop","method":"shutdown"}\n' },
      { type: STDIN_END_MESSAGE },
    ]);

    up.stdout.write('{"type":"hello"}\n');
    up.emit('exit', 0);
    expect(child.exitCode).toBe(0);
    expect(seen).toEqual(['spawn', 'exit 0']);
    // the last output still arrives before 'close'
    up.stdout.end('{"type":"bye"}\n');
    up.stderr.end();
    await new Promise((r) => setTimeout(r, 10));
    expect(seen).toEqual(['spawn', 'exit 0', 'close 0']);
    expect(out).toBe('{"type":"hello"}\n{"type":"bye"}\n');
  });

  it('closes after a grace when nobody reads the output (it never ends)', async () => {
    const up = fakeUtilityProcess();
    const child = new UtilityChild(asUtility(up));
    const closed = new Promise<number>((resolve) => child.on('close', resolve));
    up.emit('exit', 3);
    const started = Date.now();
    await expect(closed).resolves.toBe(3);
    expect(Date.now() - started).toBeGreaterThanOrEqual(1500);
  });

  it('kill() is a SIGTERM through the utility process; SIGKILL goes to the pid', () => {
    const up = fakeUtilityProcess();
    const signals: [number, string][] = [];
    const child = new UtilityChild(asUtility(up), (pid, signal) => signals.push([pid, signal]));
    expect(child.kill('SIGTERM')).toBe(true);
    expect(up.kills).toBe(1);
    expect(child.kill('SIGKILL')).toBe(true);
    expect(signals).toEqual([[4242, 'SIGKILL']]);
    up.emit('exit', 137);
    expect(child.signalCode).toBe('SIGKILL');
    expect(child.kill('SIGTERM')).toBe(false);
  });

  it('reports a failed utility process as an error', () => {
    const up = fakeUtilityProcess();
    const child = new UtilityChild(asUtility(up));
    const errors: Error[] = [];
    child.on('error', (e: Error) => errors.push(e));
    up.emit('error', 'FatalError', 'hook-child.js:1');
    expect(errors[0]!.message).toBe('utility process failed: FatalError at hook-child.js:1');
  });
});

describe('utility-process launcher', () => {
  it('forks each child entry from the main bundle folder with piped output', () => {
    const fork = vi.fn(() => asUtility(fakeUtilityProcess()));
    const launcher = utilityProcessLauncher({ fork }, { bundleDir: '/app/out/main' });
    expect(launcher.kind).toBe('bundled');
    for (const entry of CHILD_ENTRIES) {
      expect(launcher.command(entry).modulePath).toBe(path.join('/app/out/main', `${entry}.js`));
      const child = launcher.fork(entry, ['--heartbeat-ms', '250'], { DISPLAY: ':5' });
      expect(child).toBeInstanceOf(UtilityChild);
      expect(fork).toHaveBeenLastCalledWith(
        path.join('/app/out/main', `${entry}.js`),
        ['--heartbeat-ms', '250'],
        { env: { DISPLAY: ':5' }, stdio: 'pipe', serviceName: `cua-annotator ${entry}` },
      );
    }
  });
});
