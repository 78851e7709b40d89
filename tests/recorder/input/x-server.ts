// Test helpers for the input-hook tests: a private Xvfb per test file and xdotool injection.
import { execFile, spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';

/** A running Xvfb. */
export type XServer = {
  /** `:N` */
  display: string;
  /** Environment with DISPLAY set to this server. */
  env: NodeJS.ProcessEnv;
  /** Kills the server and waits for it to exit. */
  stop: () => Promise<void>;
};

async function waitForExit(proc: ChildProcess, ms: number): Promise<boolean> {
  if (proc.exitCode !== null || proc.signalCode !== null) {
    return true;
  }
  return await new Promise<boolean>((resolve) => {
    const timer = setTimeout(() => resolve(false), ms);
    proc.once('exit', () => {
      clearTimeout(timer);
      resolve(true);
    });
  });
}

// Starts Xvfb on a free display (Xvfb picks it: -displayfd) with extra server arguments.
export async function startXvfb(extraArgs: string[] = []): Promise<XServer> {
  const proc = spawn(
    'Xvfb',
    ['-displayfd', '3', '-screen', '0', '1280x800x24', '-nolisten', 'tcp', ...extraArgs],
    { stdio: ['ignore', 'ignore', 'pipe', 'pipe'] },
  );
  let stderr = '';
  proc.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const displayPipe = proc.stdio[3] as NodeJS.ReadableStream;
  const number = await new Promise<string>((resolve, reject) => {
    let text = '';
    const timer = setTimeout(() => reject(new Error(`Xvfb did not start: ${stderr}`)), 15_000);
    displayPipe.on('data', (chunk: Buffer) => {
      text += chunk.toString();
      if (text.includes('\n')) {
        clearTimeout(timer);
        resolve(text.trim());
      }
    });
    proc.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`Xvfb exited (${code}) before it was ready: ${stderr}`));
    });
  });
  const display = `:${number}`;
  return {
    display,
    env: { ...process.env, DISPLAY: display },
    stop: async () => {
      proc.kill('SIGTERM');
      if (!(await waitForExit(proc, 3000))) {
        proc.kill('SIGKILL');
        await waitForExit(proc, 3000);
      }
    },
  };
}

// Runs xdotool with the given arguments against `server`; resolves when it has finished.
export async function xdotool(server: XServer, ...args: string[]): Promise<void> {
  await new Promise<void>((resolve, reject) => {
    execFile('xdotool', args, { env: server.env, timeout: 30_000 }, (error, _stdout, stderr) => {
      if (error) {
        reject(new Error(`xdotool ${args.join(' ')} failed: ${error.message} ${stderr}`));
        return;
      }
      resolve();
    });
  });
}

// Polls `condition` every 20 ms until it holds or `timeoutMs` passes; returns the last result.
export async function waitFor(condition: () => boolean, timeoutMs = 5000): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) {
      return false;
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return true;
}

export { until } from '../../helpers/wait';
