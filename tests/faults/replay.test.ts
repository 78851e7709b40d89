// Faults of `cua-annotator replay` (docs/replay.md §5): a display that does not exist, a replay
// killed mid-run, a work folder left by a killed run. Nothing half-written stays behind; a
// running replay's folder is never taken away from it.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openLibrary } from '../../src/services/library/library';
import { lastReplayReport, REPLAY_DIR } from '../../src/services/quality/replay-service';
import { getRecording } from '../../src/store';
import { runCli } from '../helpers/cli';
import { startDesktop, type Desktop } from '../helpers/desktop';
import { copyExampleLibrary } from '../helpers/example-library';
import { REPO_ROOT } from '../helpers/paths';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('replay faults', () => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'cua-replay-faults-'));
  const libDir = path.join(root, 'lib');
  let id = '';
  let replayDir = '';
  let desktop: Desktop;

  beforeAll(async () => {
    // the example's 10-second clip (2 steps and terminate): the next run replays every step; at
    // --speed 0.5 the killed run still pauses after its first step (recorded gap 1.6 s: 3.2 s)
    id = await copyExampleLibrary(libDir, { clip: true });
    const lib = openLibrary(libDir);
    try {
      replayDir = path.join(lib.resolve(getRecording(lib.db, id).dir), REPLAY_DIR);
    } finally {
      lib.close();
    }
    desktop = await startDesktop({ shouldWaitForWindowManager: false });
  }, 120_000);

  afterAll(async () => {
    await desktop?.stop();
    fs.rmSync(root, { recursive: true, force: true });
  });

  const entries = () => (fs.existsSync(replayDir) ? fs.readdirSync(replayDir).sort() : []);

  it('a display that does not exist: a clear error with the fix, and no run folder', async () => {
    const r = await runCli(['replay', id, '--display', ':4747', '--library', libDir], {
      DISPLAY: '',
    });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/REPLAY_DRIVER_FAILED/);
    expect(r.stderr).toMatch(/fix: .*display/);
    expect(entries()).toEqual([]);
  }, 60_000);

  it('a replay killed mid-run leaves no report and no run folder once the next run starts', async () => {
    const child = spawn(
      process.execPath,
      [
        path.join(REPO_ROOT, 'bin', 'cua-annotator.mjs'),
        'replay',
        id,
        '--display',
        desktop.display,
        '--speed',
        '0.5',
        '--no-elements',
        '--library',
        libDir,
      ],
      { env: { ...desktop.env, DISPLAY: '' }, stdio: 'ignore' },
    );
    const exited = new Promise((resolve) => child.once('close', resolve));
    // wait until it has started writing (its work folder exists), then kill it
    for (let i = 0; i < 150 && !entries().some((e) => e.endsWith('.tmp')); i++) {
      await sleep(100);
    }
    await sleep(1500);
    child.kill('SIGKILL');
    await exited;
    const left = entries();
    expect(left).toHaveLength(1);
    expect(left[0]).toMatch(/^\..+\.\d+\.tmp$/);
    const lib = openLibrary(libDir);
    try {
      expect(await lastReplayReport(lib, id)).toBeNull();
    } finally {
      lib.close();
    }
    // a work folder of a live process (this one) is kept; the dead one is removed by the next run
    const live = path.join(replayDir, `.live-run.${process.pid}.tmp`);
    fs.mkdirSync(live);
    const r = await runCli(
      [
        'replay',
        id,
        '--display',
        desktop.display,
        '--speed',
        '100',
        '--no-elements',
        '--json',
        '--library',
        libDir,
      ],
      { ...desktop.env, DISPLAY: '' },
    );
    expect([0, 1]).toContain(r.code);
    const report = JSON.parse(r.stdout) as { runId: string };
    expect(entries()).toEqual([`.live-run.${process.pid}.tmp`, report.runId].sort());
    expect(fs.existsSync(path.join(replayDir, report.runId, 'report.json'))).toBe(true);
  }, 120_000);
});
