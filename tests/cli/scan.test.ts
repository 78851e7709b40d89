// `cua-annotator scan`: the real CLI on a real library; the --json shape scripts rely on, the
// human table with its summary, exit code 0 with findings, NOT_FOUND for an unknown id.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openLibrary } from '../../src/services/library/library';
import { makePiiRecording } from '../helpers/pii-recording';
import { runCli } from '../helpers/cli';
import { makeRecording } from '../helpers/store';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cua-cli-scan-'));
let withPii = '';
let plain = '';

beforeAll(() => {
  const lib = openLibrary(dir);
  try {
    withPii = makePiiRecording(lib.db);
    plain = makeRecording(lib.db, { task: 'Open the settings and set 1280x800' }).id;
  } finally {
    lib.close();
  }
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

describe('cua-annotator scan', () => {
  it('--json prints {"findings": [{kind, source, stepIndex, tMs, excerpt, id}]} and exits 0', async () => {
    const r = await runCli(['scan', withPii, '--json', '--library', dir]);
    expect(r.code, r.stderr).toBe(0);
    const parsed = JSON.parse(r.stdout) as { findings: Record<string, unknown>[] };
    expect(Object.keys(parsed)).toEqual(['findings']);
    for (const f of parsed.findings) {
      expect(Object.keys(f)).toEqual([
        'kind',
        'source',
        'stepIndex',
        'tMs',
        'excerpt',
        'id',
        'resolved',
      ]);
      expect(f.resolved).toBeNull();
      expect(f.id).toMatch(/^[0-9a-f]{16}$/);
      expect(String(f.excerpt)).not.toMatch(/bob@example\.com|carol@example\.org|4111 1111/);
    }
    expect(parsed.findings.map((f) => [f.kind, f.source, f.stepIndex, f.tMs])).toEqual([
      ['email', 'task', null, null],
      ['card', 'window-title', null, 250],
      ['email', 'window-title', null, 250],
    ]);
    expect(parsed.findings[0]!.excerpt).toMatch(/^Mail the invoice to bo\*+om$/);
  });

  it('prints a table grouped by kind with a summary line; a prefix names the recording', async () => {
    const r = await runCli(['scan', withPii.slice(0, 8), '--library', dir]);
    expect(r.code, r.stderr).toBe(0);
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines[0]).toBe('email (2)');
    expect(lines).toContain('card (1)');
    expect(
      lines.filter((l) => /^\s+-\s+-\s+task\s+-\s+"Mail the invoice to bo\*+om"$/.test(l)),
    ).toHaveLength(1);
    expect(lines.at(-1)).toMatch(
      new RegExp(`^3 findings in ${withPii}: 2 email, 1 card \\(1 unresolved of kind card/iban`),
    );
  });

  it('says so when nothing is found, answers NOT_FOUND for an unknown id, has --help', async () => {
    const [none, missing, usage, help] = await Promise.all([
      runCli(['scan', plain, '--library', dir]),
      runCli(['scan', 'ffffffff-0000', '--library', dir]),
      runCli(['scan', '--library', dir]),
      runCli(['scan', '--help']),
    ]);
    expect(none.code, none.stderr).toBe(0);
    expect(none.stdout.trim()).toBe(`no findings in ${plain}`);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('error [NOT_FOUND]');
    expect(usage.code).toBe(1);
    expect(usage.stderr).toContain('scan takes exactly one recording id');
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/^Usage: cua-annotator scan <id> \[--json\]/);
  });
});
