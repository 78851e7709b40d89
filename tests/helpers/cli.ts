// Runs the real CLI (bin/cua-annotator.mjs) in a child process.
import { spawn } from 'node:child_process';
import path from 'node:path';
import { REPO_ROOT } from './paths';

/** Exit code and captured output of one CLI run. */
export type CliRun = { code: number | null; stdout: string; stderr: string };

/** Runs `cua-annotator args…` with extra env; resolves when it exits. */
export function runCli(args: string[], env: NodeJS.ProcessEnv = {}): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      [path.join(REPO_ROOT, 'bin', 'cua-annotator.mjs'), ...args],
      {
        env: { ...process.env, ...env },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}
