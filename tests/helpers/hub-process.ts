// A real team hub for tests: `cua-annotator hub --data DIR` as a child process (PGlite and the
// folder object store), accounts made with `hub user add`, stopped by its pid.
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { runCli } from './cli';
import { REPO_ROOT } from './paths';

const BIN = path.join(REPO_ROOT, 'bin', 'cua-annotator.mjs');

/** A running hub: its process, URL and port. */
export type HubProcess = { child: ChildProcess; url: string; port: number };

/** Starts `hub --data dataDir --port port --json` (port 0: a free one) and waits for its URL. */
export function startHub(dataDir: string, port = 0): Promise<HubProcess> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      [BIN, 'hub', '--data', dataDir, '--port', String(port), '--json'],
      { env: process.env, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let stdout = '';
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.stdout.on('data', (d: Buffer) => {
      stdout += d.toString();
      const line = stdout.split('\n')[0];
      if (stdout.includes('\n') && line) {
        const url = (JSON.parse(line) as { url: string }).url;
        resolve({ child, url, port: Number(new URL(url).port) });
      }
    });
    child.once('exit', (code) => reject(new Error(`hub exited ${code}: ${stderr}`)));
  });
}

/** Stops the hub (SIGKILL by default: as if the machine lost it) and waits for its exit. */
export function stopHub(hub: HubProcess, signal: NodeJS.Signals = 'SIGKILL'): Promise<void> {
  const { child } = hub;
  if (child.exitCode !== null || child.signalCode !== null) {
    return Promise.resolve();
  }
  const gone = new Promise<void>((r) => child.once('exit', () => r()));
  child.kill(signal);
  return gone;
}

/** Adds an account with `hub user add` and answers its one-time password. */
export async function addHubUser(dataDir: string, user: string, roles: string[]): Promise<string> {
  const run = await runCli([
    'hub',
    'user',
    'add',
    user,
    ...roles.flatMap((r) => ['--role', r]),
    '--data',
    dataDir,
    '--json',
  ]);
  if (run.code !== 0) {
    throw new Error(`hub user add ${user} exited ${run.code}: ${run.stderr}`);
  }
  return (JSON.parse(run.stdout) as { password: string }).password;
}
