// isProcessAlive (zombies count as gone) and processesWritingFile, with real processes.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import { afterAll, describe, expect, it } from 'vitest';
import { isProcessAlive, processesWritingFile } from '../../src/infra/process-alive';

const dir = mkdtempSync(path.join(os.tmpdir(), 'cua-alive-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

// Runs `sh -c script` and resolves its first stdout line and the child.
async function startShell(script: string) {
  const child = spawn('sh', ['-c', script], { stdio: ['ignore', 'pipe', 'inherit'] });
  const lines = readline.createInterface({ input: child.stdout });
  const first = await new Promise<string>((resolve) => lines.once('line', resolve));
  return { child, first };
}

describe('isProcessAlive', () => {
  it('says true for a running process and false for bad or unused ids', () => {
    expect(isProcessAlive(process.pid)).toBe(true);
    expect(isProcessAlive(0)).toBe(false);
    expect(isProcessAlive(-1)).toBe(false);
    expect(isProcessAlive('12')).toBe(false);
    expect(isProcessAlive(2 ** 22 + 1)).toBe(false);
  });

  it.runIf(process.platform === 'linux')(
    'says false for a zombie (ended, not reaped by its parent)',
    async () => {
      // the background sleep ends after the shell has become `sleep 30`, which never reaps it
      const { child, first } = await startShell('sleep 0.3 & echo $!; exec sleep 30');
      try {
        const pid = Number(first);
        const deadline = performance.now() + 10_000;
        let isZombie = false;
        while (!isZombie && performance.now() < deadline) {
          await new Promise((resolve) => setTimeout(resolve, 20));
          try {
            process.kill(pid, 0); // still there (signal 0 succeeds on a zombie)
            isZombie = !isProcessAlive(pid);
          } catch {
            break;
          }
        }
        expect(isZombie).toBe(true);
      } finally {
        child.kill('SIGKILL');
      }
    },
  );
});

describe.runIf(process.platform === 'linux')('processesWritingFile', () => {
  it('lists a process writing the file, not one reading it, and nobody once it closed it', async () => {
    const file = path.join(dir, 'video.mp4');
    writeFileSync(file, 'x');
    const writer = await startShell(`exec 3>>'${file}'; echo ready; exec sleep 30`);
    const reader = await startShell(`exec 3<'${file}'; echo ready; exec sleep 30`);
    try {
      expect(processesWritingFile(file)).toEqual([writer.child.pid]);
      const ended = new Promise((resolve) => writer.child.once('exit', resolve));
      writer.child.kill('SIGKILL');
      await ended;
      expect(processesWritingFile(file)).toEqual([]);
    } finally {
      writer.child.kill('SIGKILL');
      reader.child.kill('SIGKILL');
    }
    expect(processesWritingFile(path.join(dir, 'missing.mp4'))).toEqual([]);
  });
});
