import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli';
import { execFileSync } from 'node:child_process';
import { FIXTURE_DIR, REPO_ROOT } from '../helpers/paths';

const lib = fs.mkdtempSync(path.join(os.tmpdir(), 'cua-cli-'));
afterAll(() => fs.rmSync(lib, { recursive: true, force: true }));

describe('cua-annotator CLI', () => {
  it('prints help and exits 0; unknown commands exit 1', async () => {
    const help = await runCli(['--help']);
    expect(help.code).toBe(0);
    for (const c of ['import', 'list', 'show', 'delete', 'doctor']) {
      expect(help.stdout).toContain(c);
    }
    const bad = await runCli(['frobnicate']);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('unknown command "frobnicate"');
  });

  it.each(['import', 'list', 'show', 'delete', 'doctor'])(
    '%s --help exits 0 with usage',
    async (c) => {
      const r = await runCli([c, '--help']);
      expect(r.code).toBe(0);
      expect(r.stdout).toMatch(new RegExp(`^Usage: cua-annotator ${c}`));
    },
  );

  it('bin refuses a Node older than 22.12 with a fix instead of crashing in better-sqlite3', () => {
    // the machine's own Node may be older (CI's is 20): npx runs the project's Node 24 instead
    const script =
      "Object.defineProperty(process.versions, 'node', { value: '20.19.0' });" +
      "process.argv.push('list'); await import('./bin/cua-annotator.mjs');";
    let status = 0;
    let stderr = '';
    try {
      execFileSync(process.execPath, ['--input-type=module', '-e', script], {
        cwd: REPO_ROOT,
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'pipe'],
      });
    } catch (e) {
      const failure = e as { status: number; stderr: string };
      status = failure.status;
      stderr = failure.stderr;
    }
    expect(status).toBe(2);
    expect(stderr).toContain('needs Node 22.12 or newer; this is Node 20.19.0');
    expect(stderr).toContain('fix: run it as `npx cua-annotator');
  });

  it('usage mistakes exit 1 and say what is wrong', async () => {
    const r = await runCli(['list', '--status', 'bogus', '--library', lib]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('--status must be one of');
    const r2 = await runCli(['show', '--library', lib]);
    expect(r2.code).toBe(1);
    const r3 = await runCli(['list', '--nope']);
    expect(r3.code).toBe(1);
    expect(r3.stderr).toContain('unknown option --nope');
    // neither ids nor --all: a usage error before any library is opened
    const r4 = await runCli([
      'export',
      '--format',
      'agentnet-jsonl',
      '--out',
      lib,
      '--library',
      lib,
    ]);
    expect(r4.code).toBe(1);
    expect(r4.stderr).toContain('give recording ids or --all');
  });

  it('imports the fixture and shows it as JSON with the required facts', async () => {
    const imp = await runCli(['import', FIXTURE_DIR, '--library', lib, '--json']);
    expect(imp.code, imp.stderr).toBe(0);
    const { result } = JSON.parse(imp.stdout);
    expect(result.events).toBe(4099);

    const show = await runCli(['show', result.id.slice(0, 8), '--json'], {
      CUA_ANNOTATOR_LIBRARY: lib,
    });
    expect(show.code, show.stderr).toBe(0);
    const v = JSON.parse(show.stdout);
    expect(v.id).toBe(result.id);
    expect(v.task).toMatch(/^Open the system display settings/);
    expect(v.platform.system).toBe('Windows');
    expect(v.screen).toMatchObject({ width: 1366, height: 768, scale: 1 });
    expect(v.video).toMatchObject({ width: 1276, height: 718, fps: 30, startS: 30673.6036902 });
    expect(v.video.durationMs / 1000).toBeCloseTo(122.6, 1);
    expect(v.eventCounts).toMatchObject({
      total: 4099,
      move: 4034,
      button: 42,
      scroll: 19,
      key: 4,
    });
    expect(v.steps).toHaveLength(14);
    expect(v.steps[0]).toEqual(
      expect.objectContaining({
        index: 0,
        type: 'click',
        description: 'Single left Click',
        code: 'pyautogui.click(x=0.9722, y=0.9701)',
        startMs: 30680627.0419,
        endMs: 30681046.3558,
      }),
    );
    expect(v.steps.map((s: { label: string }) => s.label)).toContain('Click on Keep changes');

    const list = await runCli(['list', '--json', '--library', lib]);
    expect(JSON.parse(list.stdout)).toEqual([
      expect.objectContaining({ id: result.id, stepCount: 14, eventCount: 4099, os: 'win32' }),
    ]);
    const text = await runCli(['show', result.id, '--library', lib]);
    expect(text.stdout).toContain('30673.6036902 s on the recording clock');

    const del = await runCli(['delete', result.id, '--library', lib]);
    expect(del.code).toBe(0);
    expect(fs.existsSync(path.join(lib, 'recordings', result.id))).toBe(false);
    const gone = await runCli(['show', result.id, '--library', lib]);
    expect(gone.code).toBe(2);
    expect(gone.stderr).toContain('[NOT_FOUND]');
  }, 120_000);

  it('a failed import exits 2 with the file, line and problem', async () => {
    const bad = fs.mkdtempSync(path.join(os.tmpdir(), 'cua-bad-'));
    try {
      fs.writeFileSync(path.join(bad, 'task_name.json'), '{"task_name": ""}');
      const r = await runCli(['import', bad, '--library', lib]);
      expect(r.code).toBe(2);
      expect(r.stderr).toContain('[IMPORT_INVALID]');
      expect(r.stderr).toContain('task_name.json: field "task_name" is empty');
    } finally {
      fs.rmSync(bad, { recursive: true, force: true });
    }
  }, 120_000);

  it('refuses an unwritable library with a clear error', async () => {
    const file = path.join(lib, 'a-file');
    fs.writeFileSync(file, 'x');
    // import creates a library (other commands refuse a folder without one: LIBRARY_NOT_FOUND)
    const r = await runCli(['import', FIXTURE_DIR, '--library', path.join(file, 'sub')]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('[LIBRARY_UNWRITABLE]');
  }, 120_000);

  it('doctor --json reports every check with a fix for failures', async () => {
    const r = await runCli(['doctor', '--json', '--library', lib], { DISPLAY: '' });
    const report = JSON.parse(r.stdout);
    expect(r.code).toBe(2);
    const display = report.checks.find((c: { id: string }) => c.id === 'display');
    expect(display.ok).toBe(false);
    expect(display.fix).toMatch(/Xvfb|DISPLAY/);
    expect(report.checks.find((c: { id: string }) => c.id === 'library').ok).toBe(true);
  });
});
