// A bare Xvfb per test file for screen-capture tests (docs/platform-linux.md §2, without the
// D-Bus/AT-SPI/openbox parts ffmpeg does not need), plus small process helpers.
import { execFile, spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';

/** A running Xvfb server. */
export type Xvfb = {
  /** Display name, e.g. `:437`. */
  display: string;
  /** Screen width in px. */
  width: number;
  /** Screen height in px. */
  height: number;
  /** Kills the server (SIGTERM, SIGKILL after 2 s); safe to call twice. */
  stop(): Promise<void>;
};

/** First display number tried: above tests/helpers/desktop.ts's per-worker range (100 + 10·id). */
const FIRST_DISPLAY = 400;
/** How many display numbers the random pick spreads over. */
const DISPLAY_SPREAD = 500;

// Starts `Xvfb :N -screen 0 WxHx24 -nolisten tcp` on a free N and waits until xdpyinfo answers.
export async function startXvfb(width = 1280, height = 800): Promise<Xvfb> {
  for (let attempt = 0; attempt < 20; attempt += 1) {
    const number = FIRST_DISPLAY + Math.floor(Math.random() * DISPLAY_SPREAD);
    if (existsSync(`/tmp/.X${number}-lock`) || existsSync(`/tmp/.X11-unix/X${number}`)) {
      continue;
    }
    const display = `:${number}`;
    const server = spawn(
      'Xvfb',
      [display, '-screen', '0', `${width}x${height}x24`, '-nolisten', 'tcp'],
      {
        stdio: 'ignore',
      },
    );
    server.on('error', () => undefined);
    if (await waitForDisplay(display, server)) {
      return { display, width, height, stop: () => stopProcess(server) };
    }
    await stopProcess(server);
  }
  throw new Error('could not start Xvfb on a free display number');
}

async function waitForDisplay(display: string, server: ChildProcess): Promise<boolean> {
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline) {
    if (server.exitCode !== null || server.signalCode !== null) {
      return false; // display taken meanwhile, or Xvfb failed
    }
    if ((await run('xdpyinfo', ['-display', display])).code === 0) {
      // the server answering must be ours, not one that took the number first
      return isLockOwner(display, server.pid);
    }
    await sleep(50);
  }
  return false;
}

function isLockOwner(display: string, pid: number | undefined): boolean {
  try {
    return Number(readFileSync(`/tmp/.X${display.slice(1)}-lock`, 'utf8').trim()) === pid;
  } catch {
    return false;
  }
}

// Ends a child: SIGTERM, then SIGKILL after 2 s; resolves once it has exited.
export async function stopProcess(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) {
    return;
  }
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 2000);
  await exited;
  clearTimeout(timer);
}

/** Outcome of {@link run}. */
export type RunResult = { code: number; stdout: string; stdoutBytes: Buffer; stderr: string };

// Runs a command to completion (10 MB output cap, 60 s limit); never rejects.
export async function run(command: string, args: readonly string[]): Promise<RunResult> {
  return await new Promise((resolve) => {
    execFile(
      command,
      [...args],
      { timeout: 60_000, maxBuffer: 64 * 1024 * 1024, encoding: 'buffer' },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
        resolve({
          code,
          stdout: stdout.toString('utf8'),
          stdoutBytes: stdout,
          stderr: stderr.toString('utf8'),
        });
      },
    );
  });
}

// Resolves after `ms` milliseconds.
export async function sleep(ms: number): Promise<void> {
  await new Promise((resolve) => setTimeout(resolve, ms));
}

// True while a process with this pid exists and is not a zombie.
export function isProcessAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    // a zombie (exited, not yet reaped) counts as gone
    return !/^\d+ \(.*\) Z/s.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}
