// Children die with their parent: the kill-on-exit registry ends registered children when the
// parent exits, the parent-death signal ends them when the parent is SIGKILLed (no hook runs),
// and stopChild escalates from the request to the signals. Real processes throughout.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import { describe, expect, it } from 'vitest';
import { killOnExit, registeredChildCount } from '../../src/infra/kill-on-exit';
import { findSetpriv, parentDeathWatcherCommand } from '../../src/infra/parent-death';
import { isProcessAlive } from '../../src/infra/process-alive';
import { spawnChild } from '../../src/infra/spawn-child';
import { stopChild } from '../../src/infra/stop-child';

const REPO_ROOT = path.resolve(import.meta.dirname, '../..');
const FIXTURE = path.join(import.meta.dirname, 'fixtures', 'spawn-then-die.ts');

/** Starts the fixture parent; resolves its process and the pid of the sleep it started. */
async function startParent(
  mode: 'exit' | 'wait' | 'term-exit' | 'term-wait',
  countFile = '',
): Promise<{ parent: ReturnType<typeof spawn>; childPid: number; exited: Promise<unknown> }> {
  const parent = spawn(
    process.execPath,
    [path.join(REPO_ROOT, 'bin', 'run-ts.mjs'), FIXTURE, mode, countFile],
    {
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  const exited = new Promise((resolve) => parent.once('exit', resolve));
  const lines = readline.createInterface({ input: parent.stdout });
  const first = await new Promise<string>((resolve) => lines.once('line', resolve));
  const { pid } = JSON.parse(first) as { pid: number };
  return { parent, childPid: pid, exited };
}

// A killed child that nobody has reaped yet (a zombie, reparented to init) is dead too.
function isRunning(pid: number): boolean {
  if (!isProcessAlive(pid)) {
    return false;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return false;
  }
}

async function waitUntilGone(pid: number, limitMs: number): Promise<boolean> {
  const deadline = performance.now() + limitMs;
  while (performance.now() < deadline) {
    if (!isRunning(pid)) {
      return true;
    }
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  return !isRunning(pid);
}

describe('kill-on-exit and parent-death signal', () => {
  it('kills registered children when the parent exits', async () => {
    const { childPid, exited } = await startParent('exit');
    expect(isProcessAlive(childPid)).toBe(true);
    await exited;
    expect(await waitUntilGone(childPid, 5_000)).toBe(true);
  }, 30_000);

  it.skipIf(findSetpriv() === null)(
    'kills the child through the parent-death signal when the parent is SIGKILLed',
    async () => {
      const { parent, childPid, exited } = await startParent('wait');
      expect(isProcessAlive(childPid)).toBe(true);
      parent.kill('SIGKILL');
      await exited;
      // the kernel signals at once; a loaded machine may take a while to schedule the end
      expect(await waitUntilGone(childPid, 15_000)).toBe(true);
    },
    30_000,
  );

  it('registers while the child runs and unregisters on its exit', async () => {
    const before = registeredChildCount();
    const child = spawnChild('sleep', ['30'], { stdio: 'ignore' });
    expect(registeredChildCount()).toBe(before + 1);
    const closed = new Promise((resolve) => child.once('close', resolve));
    child.kill('SIGKILL');
    await closed;
    expect(registeredChildCount()).toBe(before);
    // the unregister function is idempotent
    const unregister = killOnExit(child);
    unregister();
    unregister();
    expect(registeredChildCount()).toBe(before);
  });
});

// SIGTERMs the fixture's counting child has received (one line each).
function termsReceived(file: string): number {
  try {
    return readFileSync(file, 'utf8').split('\n').filter(Boolean).length;
  } catch {
    return 0;
  }
}

// Starts the counting child under `mode`, ends the parent (SIGKILL for term-wait), and returns
// how many SIGTERMs the child got within 1 s of the first (which must come within 15 s).
async function termsAfterParentEnds(mode: 'term-exit' | 'term-wait'): Promise<number> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'cua-pdeath-'));
  const file = path.join(dir, 'terms.txt');
  const { parent, childPid, exited } = await startParent(mode, file);
  try {
    if (mode === 'term-wait') {
      parent.kill('SIGKILL');
    }
    await exited;
    const deadline = performance.now() + 15_000;
    while (termsReceived(file) === 0 && performance.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    // the repeats, when there are any, come within milliseconds
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    return termsReceived(file);
  } finally {
    // the child survives SIGTERM by design
    process.kill(childPid, 'SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  }
}

// The kernel sends a setpriv parent-death signal once per thread of the parent that exits while
// holding the child: 2–4 times for a SIGKILLed Node. ffmpeg finishes its file on the first
// SIGTERM and aborts every write still to come on the second, so the last fragment was lost.
describe.runIf(process.platform === 'linux')('a parent-death SIGTERM (ffmpeg capture)', () => {
  it('arrives exactly once when the parent is SIGKILLed', async () => {
    expect(await termsAfterParentEnds('term-wait')).toBe(1);
  }, 30_000);

  it('arrives exactly once when the parent exits (the exit hook sends it, the watcher does not)', async () => {
    expect(await termsAfterParentEnds('term-exit')).toBe(1);
  }, 30_000);

  it('comes from a watcher that signals only its own process, and nothing once disarmed', async () => {
    const target = spawn('sleep', ['30'], { stdio: 'ignore' });
    await new Promise((resolve) => target.once('spawn', resolve));
    const targetEnded = new Promise((resolve) => target.once('exit', resolve));
    const command = parentDeathWatcherCommand(target.pid!, 'SIGTERM');
    expect(command).not.toBeNull();
    const [file, args] = command!;
    // runs the watcher with `input` on its stdin, then end of input (what our death looks like)
    const watch = async (watcherArgs: string[], input: string) => {
      const watcher = spawn(file, watcherArgs, { stdio: ['pipe', 'ignore', 'inherit'] });
      const ended = new Promise((resolve) => watcher.once('exit', resolve));
      watcher.stdin.end(input);
      await ended;
    };
    try {
      // a line on stdin disarms it
      await watch(args, 'disarm\n');
      // a pid now naming another process (another start time) is left alone
      await watch([...args.slice(0, -1), '1'], '');
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(isRunning(target.pid!)).toBe(true);
      // end of input: the signal, once
      await watch(args, '');
      await targetEnded;
      expect(target.signalCode).toBe('SIGTERM');
    } finally {
      target.kill('SIGKILL');
    }
  });
});

describe('stopChild', () => {
  it('ends a child that honours the request without any signal', async () => {
    const child = spawnChild('cat', [], { stdio: ['pipe', 'ignore', 'ignore'] });
    const exited = new Promise((resolve) => child.once('close', resolve));
    const signals: string[] = [];
    const step = await stopChild(child, {
      exited,
      request: () => void child.stdin?.end(),
      kill: (signal) => {
        signals.push(signal);
        child.kill(signal);
      },
    });
    expect(step).toBe('request');
    expect(signals).toEqual([]);
  });

  it('escalates to SIGKILL when the child ignores the request and SIGTERM', async () => {
    const child = spawnChild('sh', ['-c', 'trap "" TERM; exec sleep 30'], { stdio: 'pipe' });
    const exited = new Promise((resolve) => child.once('close', resolve));
    await new Promise((resolve) => setTimeout(resolve, 200));
    const signals: string[] = [];
    const step = await stopChild(child, {
      exited,
      request: () => true,
      requestGraceMs: 100,
      killGraceMs: 200,
      kill: (signal) => {
        signals.push(signal);
        child.kill(signal);
      },
    });
    expect(step).toBe('kill');
    expect(signals).toEqual(['SIGTERM', 'SIGKILL']);
    expect(child.signalCode).toBe('SIGKILL');
  });
});
