// `cua-annotator check`: the real CLI on a real library; the --json shape scripts rely on, exit 0
// for a clean recording and one with warnings only, 1 with an error, 2 for an unknown id, --help.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openLibrary } from '../../src/services/library/library';
import { makeCheckRecording } from '../helpers/check-recording';
import { runCli } from '../helpers/cli';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cua-cli-check-'));
let clean = '';
let warned = '';
let broken = '';

beforeAll(() => {
  const lib = openLibrary(dir);
  try {
    clean = makeCheckRecording(lib).id;
    warned = makeCheckRecording(lib, { noTerminate: true }).id;
    broken = makeCheckRecording(lib, { task: '', missingKeyframes: [1] }).id;
  } finally {
    lib.close();
  }
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

type Json = { ok: boolean; problems: Record<string, unknown>[] };

describe('cua-annotator check', () => {
  it('--json of a clean recording: {"ok": true, "problems": []}, exit 0', async () => {
    const r = await runCli(['check', clean, '--json', '--library', dir]);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({ ok: true, problems: [] });
  });

  it('--json with errors: ok false, each problem {code, stepIndex, message, fix, severity}, exit 1', async () => {
    const r = await runCli(['check', broken, '--json', '--library', dir]);
    expect(r.code, r.stderr).toBe(1);
    const parsed = JSON.parse(r.stdout) as Json;
    expect(Object.keys(parsed)).toEqual(['ok', 'problems']);
    expect(parsed.ok).toBe(false);
    for (const p of parsed.problems) {
      expect(Object.keys(p)).toEqual(['code', 'stepIndex', 'message', 'fix', 'severity']);
      expect(String(p.fix).length).toBeGreaterThan(10);
    }
    expect(parsed.problems.map((p) => [p.code, p.stepIndex, p.severity])).toEqual([
      ['TASK_MISSING', null, 'error'],
      ['KEYFRAME_MISSING', 1, 'error'],
    ]);
  });

  it('warnings only: ok, exit 0; the human output names code, step and fix', async () => {
    const r = await runCli(['check', warned.slice(0, 8), '--library', dir]);
    expect(r.code, r.stderr).toBe(0);
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^warning +NO_TERMINATE +step - +The steps do not end with/);
    expect(lines[1]).toMatch(/^ +fix: Insert a terminate step/);
    expect(lines.at(-1)).toBe(`ok: ${warned}: 0 errors, 1 warning`);
  });

  it('an error without --json: "not ok" summary, exit 1', async () => {
    const r = await runCli(['check', broken, '--library', dir]);
    expect(r.code).toBe(1);
    expect(r.stdout.trimEnd().split('\n').at(-1)).toBe(`not ok: ${broken}: 2 errors, 0 warnings`);
  });

  it('an unknown id is NOT_FOUND (exit 2); no id is a usage error (exit 1); --help', async () => {
    const missing = await runCli(['check', 'ffffffff', '--library', dir]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('error [NOT_FOUND]');
    const usage = await runCli(['check', '--library', dir]);
    expect(usage.code).toBe(1);
    expect(usage.stderr).toContain('check takes exactly one recording id');
    const help = await runCli(['check', '--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('Usage: cua-annotator check <id> [--json]');
    expect(help.stdout).toContain('UNLABELLED_STEP');
    const top = await runCli(['--help']);
    expect(top.stdout).toMatch(/^ {2}check +check a recording before submit/m);
  });
});
