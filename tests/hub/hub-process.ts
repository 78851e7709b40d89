// The hub and its people as separate processes, for end-to-end hub tests: `hub …` as a child
// (resolved once it prints its URL), `hub user add` with the one-time password it prints, and
// `login … --password-stdin --new-password` into a library. The CLI is the real one
// (bin/cua-annotator.mjs).
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { runCli, type CliRun } from '../helpers/cli';
import { REPO_ROOT } from '../helpers/paths';

export const HUB_BIN = path.join(REPO_ROOT, 'bin', 'cua-annotator.mjs');
/** The password each test account sets at its first sign-in. */
export const NEW_PASSWORD = 'a long new password 42';

/** Runs the CLI with `input` on standard input. */
export function runCliWithInput(args: string[], input: string): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [HUB_BIN, ...args], {
      env: process.env,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(input);
  });
}

/** A running `cua-annotator hub` child. */
export type HubProcess = {
  child: ChildProcess;
  url: string;
  port: number;
  /** What the hub wrote to stderr so far. */
  stderr: () => string;
  /** SIGTERM (or `signal`), resolved once it exited. */
  stop: (signal?: NodeJS.Signals) => Promise<void>;
};

/** Starts `hub ARGS --port PORT --json`; resolves once it printed its URL. */
export function startHubProcess(
  args: string[],
  options: { port?: number; env?: NodeJS.ProcessEnv } = {},
): Promise<HubProcess> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      [HUB_BIN, 'hub', ...args, '--port', String(options.port ?? 0), '--json'],
      { env: { ...process.env, ...options.env }, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let stdout = '';
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const onExit = (code: number | null) => reject(new Error(`hub exited ${code}: ${stderr}`));
    child.once('exit', onExit);
    child.stdout.on('data', (d: Buffer) => {
      stdout += d.toString();
      const line = stdout.split('\n')[0];
      if (stdout.includes('\n') && line) {
        child.off('exit', onExit);
        const url = (JSON.parse(line) as { url: string }).url;
        resolve({
          child,
          url,
          port: Number(new URL(url).port),
          stderr: () => stderr,
          stop: (signal = 'SIGTERM') => {
            if (child.exitCode !== null || child.signalCode !== null) {
              return Promise.resolve();
            }
            const gone = new Promise<void>((r) => child.once('exit', () => r()));
            child.kill(signal);
            return gone;
          },
        });
      }
    });
  });
}

/** `hub user add NAME --role ROLE… <target>`: the one-time password. */
export async function addHubUser(name: string, roles: string[], target: string[]): Promise<string> {
  const add = await runCli([
    'hub',
    'user',
    'add',
    name,
    ...roles.flatMap((r) => ['--role', r]),
    ...target,
    '--json',
  ]);
  if (add.code !== 0) {
    throw new Error(`hub user add ${name} exited ${add.code}: ${add.stderr}`);
  }
  return (JSON.parse(add.stdout) as { password: string }).password;
}

/** Signs `library` in to the hub at `url` as `name`, changing the one-time password. */
export async function loginLibrary(
  url: string,
  name: string,
  oneTimePassword: string,
  library: string,
): Promise<void> {
  const login = await runCliWithInput(
    ['login', url, '--user', name, '--password-stdin', '--new-password', '--library', library],
    `${oneTimePassword}\n${NEW_PASSWORD}\n`,
  );
  if (login.code !== 0) {
    throw new Error(`login ${name} exited ${login.code}: ${login.stderr}`);
  }
}
