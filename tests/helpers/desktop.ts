// A headless desktop per test worker: Xvfb + D-Bus session bus + AT-SPI bus + openbox, brought
// up by tests/setup/desktop-up.sh (docs/platform-linux.md §2). Usage:
//
//   const desktop = await startDesktop();
//   const app = desktop.spawn('/usr/bin/python3', [GTK_FORM]);   // inherits desktop.env
//   ...
//   await desktop.stop();   // kills spawned apps, then openbox, atspi, dbus, xvfb; removes run dir
import { execFile, spawn } from 'node:child_process';
import type { ChildProcess, SpawnOptions } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';

/** The desktop-up script. */
export const DESKTOP_UP_SCRIPT = path.resolve(import.meta.dirname, '../setup/desktop-up.sh');

/** A running headless desktop. */
export type Desktop = {
  /** X display name, e.g. `:104`. */
  display: string;
  /** X display number, e.g. 104. */
  displayNumber: number;
  /** Fresh run directory (bus socket, XDG_RUNTIME_DIR, logs, pid files). */
  runDir: string;
  /** process.env plus DISPLAY, DBUS_SESSION_BUS_ADDRESS and XDG_RUNTIME_DIR for children. */
  env: NodeJS.ProcessEnv;
  /** Spawns a process in the desktop (env merged); it is killed by stop() if still running. */
  spawn(command: string, args?: readonly string[], options?: SpawnOptions): ChildProcess;
  /** Runs a command in the desktop to completion (e.g. xdotool); rejects on a non-zero exit. */
  run(command: string, args: readonly string[], timeoutMs?: number): Promise<string>;
  /** Tears everything down in order and deletes the run directory; safe to call twice. */
  stop(): Promise<void>;
};

/** Options of {@link startDesktop}. */
export type StartDesktopOptions = {
  /** First display number to try; default 100 + 10 × (vitest worker id). */
  firstDisplay?: number;
  /** Display numbers to try before giving up (others may be taken); default 40. */
  attempts?: number;
  /** Wait until openbox manages the screen (needed for _NET_ACTIVE_WINDOW); default true. */
  shouldWaitForWindowManager?: boolean;
};

const TEARDOWN_ORDER = ['openbox', 'atspi', 'dbus', 'xvfb'] as const;
const EXIT_WAIT_MS = 2000;

function workerId(): number {
  const id = Number(process.env.VITEST_POOL_ID ?? process.env.VITEST_WORKER_ID ?? 0);
  return Number.isFinite(id) ? id : 0;
}

async function exec(
  command: string,
  args: readonly string[],
  env: NodeJS.ProcessEnv,
  timeoutMs: number,
): Promise<{ code: number; stdout: string; stderr: string }> {
  return await new Promise((resolve) => {
    execFile(command, [...args], { env, timeout: timeoutMs }, (error, stdout, stderr) => {
      const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
      resolve({ code, stdout: String(stdout), stderr: String(stderr) });
    });
  });
}

// A zombie (exited, not yet reaped by its adoptive parent) counts as gone: processes the script
// started in the background are re-parented to an init that may never reap them.
function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    return !/^\d+ \(.*\) Z/s.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false; // /proc entry gone between the two checks
  }
}

async function waitForExit(pid: number, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (!isAlive(pid)) {
      return true;
    }
    await new Promise((r) => setTimeout(r, 20));
  }
  return !isAlive(pid);
}

async function readPid(runDir: string, name: string): Promise<number | null> {
  try {
    const pid = Number.parseInt((await readFile(path.join(runDir, `${name}.pid`), 'utf8')).trim());
    return Number.isInteger(pid) && pid > 0 ? pid : null;
  } catch {
    return null;
  }
}

/** Names of the desktop's processes (xvfb, dbus, atspi, openbox) no longer running. */
export async function deadParts(runDir: string): Promise<string[]> {
  const dead: string[] = [];
  for (const name of TEARDOWN_ORDER) {
    const pid = await readPid(runDir, name);
    if (pid === null || !isAlive(pid)) {
      dead.push(name);
    }
  }
  return dead;
}

async function killPid(pid: number): Promise<void> {
  try {
    process.kill(pid, 'SIGTERM');
  } catch {
    return; // already gone
  }
  if (!(await waitForExit(pid, EXIT_WAIT_MS))) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // gone meanwhile
    }
    await waitForExit(pid, EXIT_WAIT_MS);
  }
}

async function teardown(runDir: string): Promise<void> {
  for (const name of TEARDOWN_ORDER) {
    const pid = await readPid(runDir, name);
    if (pid !== null) {
      await killPid(pid);
    }
  }
  await rm(runDir, { recursive: true, force: true });
}

async function waitForWindowManager(env: NodeJS.ProcessEnv): Promise<void> {
  const deadline = Date.now() + 5000;
  while (Date.now() < deadline) {
    const { stdout } = await exec('xprop', ['-root', '_NET_SUPPORTING_WM_CHECK'], env, 2000);
    if (/window id # 0x[0-9a-f]+/i.test(stdout)) {
      return;
    }
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error('openbox did not take over the screen within 5 s');
}

// Brings up a desktop on a free display number (one range per vitest worker).
export async function startDesktop(options: StartDesktopOptions = {}): Promise<Desktop> {
  const first = options.firstDisplay ?? 100 + 10 * workerId();
  const attempts = options.attempts ?? 40;
  const failures: string[] = [];
  for (let i = 0; i < attempts; i += 1) {
    const displayNumber = first + i;
    const runDir = await mkdtemp(path.join(os.tmpdir(), 'cua-desktop-'));
    const result = await exec(
      '/bin/sh',
      [DESKTOP_UP_SCRIPT, String(displayNumber), runDir],
      process.env,
      30_000,
    );
    if (result.code === 0) {
      const desktop = makeDesktop(displayNumber, runDir);
      if (options.shouldWaitForWindowManager ?? true) {
        try {
          await waitForWindowManager(desktop.env);
        } catch (error) {
          const log = await readFile(path.join(runDir, 'openbox.log'), 'utf8').catch(() => '');
          await desktop.stop();
          throw new Error(`${(error as Error).message}; openbox.log:\n${log}`, { cause: error });
        }
      }
      // a part that died during start-up (seen rarely under a loaded parallel run): try the
      // next display instead of handing out a broken desktop
      const dead = await deadParts(runDir);
      if (dead.length === 0) {
        return desktop;
      }
      failures.push(`:${displayNumber} lost ${dead.join(', ')} at start-up`);
      await desktop.stop();
      continue;
    }
    await teardown(runDir);
    if (result.code !== 3) {
      throw new Error(
        `desktop-up.sh :${displayNumber} failed (exit ${result.code}): ${result.stderr}`,
      );
    }
    failures.push(`:${displayNumber} in use`);
  }
  throw new Error(
    `no free X display among ${first}..${first + attempts - 1}: ${failures.join(', ')}`,
  );
}

function makeDesktop(displayNumber: number, runDir: string): Desktop {
  const display = `:${displayNumber}`;
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    DISPLAY: display,
    DBUS_SESSION_BUS_ADDRESS: `unix:path=${runDir}/bus`,
    XDG_RUNTIME_DIR: `${runDir}/xdg`,
  };
  const children = new Set<ChildProcess>();
  let stopping: Promise<void> | null = null;
  return {
    display,
    displayNumber,
    runDir,
    env,
    spawn(command, args = [], spawnOptions = {}) {
      const child = spawn(command, [...args], {
        stdio: ['pipe', 'pipe', 'pipe'],
        ...spawnOptions,
        env: { ...env, ...spawnOptions.env },
      });
      child.on('error', () => undefined);
      children.add(child);
      child.once('close', () => children.delete(child));
      return child;
    },
    async run(command, args, timeoutMs = 10_000) {
      const result = await exec(command, args, env, timeoutMs);
      if (result.code !== 0) {
        throw new Error(
          `${command} ${args.join(' ')} failed (exit ${result.code}): ${result.stderr}`,
        );
      }
      return result.stdout;
    },
    async stop() {
      stopping ??= (async () => {
        await Promise.all(
          [...children].map(async (child) => {
            if (child.pid !== undefined && child.exitCode === null && child.signalCode === null) {
              await killPid(child.pid);
            }
          }),
        );
        await teardown(runDir);
      })();
      await stopping;
    },
  };
}
