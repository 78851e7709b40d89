// `cua-annotator replay`: the real CLI on a real library, up to where a desktop would be needed:
// --help, argument errors, the refusal of the display the user works on, no display, an unknown
// id, and a display that does not exist (the driver child fails and its error is shown).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openLibrary } from '../../src/services/library/library';
import { makeCheckRecording } from '../helpers/check-recording';
import { runCli } from '../helpers/cli';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cua-cli-replay-'));
let id = '';

beforeAll(() => {
  const lib = openLibrary(dir);
  try {
    id = makeCheckRecording(lib).id;
  } finally {
    lib.close();
  }
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

const replay = (args: string[], env: NodeJS.ProcessEnv = {}) =>
  runCli(['replay', ...args, '--library', dir], env);

describe('cua-annotator replay', () => {
  it('--help: exit 0, the usage line, every option, the measures and exit codes', async () => {
    const r = await runCli(['replay', '--help']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('Usage: cua-annotator replay <id> [--display :N] [--speed X]');
    for (const option of ['--display :N', '--speed X', '--live', '--no-elements', '--json']) {
      expect(r.stdout).toMatch(new RegExp(`^ {2}${option} `, 'm'));
    }
    expect(r.stdout).toContain('score = the share of results');
    expect(r.stdout).toMatch(/Exit code 0 when every result matches, 1 when one diverges, 3/);
    const top = await runCli(['--help']);
    expect(top.stdout).toMatch(/^ {2}replay +replay a recording/m);
  });

  it('a bad --speed: a usage error naming the range, before anything runs', async () => {
    for (const speed of ['0', '-1', 'fast', '101']) {
      // a value starting with '-' goes after '=' (else it reads as an option)
      const r = await replay([id, '--display', ':99', `--speed=${speed}`]);
      expect(r.code, speed).toBe(1);
      expect(r.stderr).toContain(`error: --speed must be a number in (0, 100], got '${speed}'`);
      expect(r.stderr).toContain('cua-annotator replay --help');
      expect(r.stdout).toBe('');
    }
  });

  it('no id or two ids: a usage error', async () => {
    for (const args of [[], [id, id]]) {
      const r = await replay(args);
      expect(r.code).toBe(1);
      expect(r.stderr).toContain('error: replay takes exactly one recording id');
    }
  });

  it('DISPLAY equal to --display without --live: REPLAY_LIVE_DISPLAY with its fix, exit 2', async () => {
    for (const [display, current] of [
      [':42', ':42'],
      [':42', ':42.0'],
    ]) {
      const r = await replay([id, '--display', display!], { DISPLAY: current });
      expect(r.code, `${display} on ${current}`).toBe(2);
      expect(r.stderr).toContain(
        `error [REPLAY_LIVE_DISPLAY]: refusing to replay on ${display}, the display you are working on`,
      );
      expect(r.stderr).toMatch(/^fix: pass --display :N of a virtual display .* or --live/m);
    }
    // no --display: DISPLAY itself is refused the same way
    const r = await replay([id], { DISPLAY: ':42' });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('error [REPLAY_LIVE_DISPLAY]');
  });

  it('no --display and no DISPLAY: REPLAY_NO_DISPLAY, exit 2', async () => {
    const r = await replay([id], { DISPLAY: '' });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('error [REPLAY_NO_DISPLAY]');
    expect(r.stderr).toMatch(/^fix: pass --display :N/m);
  });

  it('an unknown id: NOT_FOUND, exit 2', async () => {
    const r = await replay(['ffffffff', '--display', ':99'], { DISPLAY: ':1' });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('error [NOT_FOUND]');
  });

  it('a display that does not exist: the driver child fails, its error and the fix shown, exit 2', async () => {
    const r = await replay([id, '--display', ':4321', '--json'], { DISPLAY: ':1' });
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toMatch(
      /^error \[REPLAY_DRIVER_FAILED\]: replay driver exited \(.+\): .*Could not open main display/m,
    );
    expect(r.stderr).toMatch(/^fix: check that the display exists/m);
    expect(r.stdout).toBe('');
  });
});
