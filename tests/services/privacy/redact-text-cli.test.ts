// `cua-annotator scan <id> --redact FINDING_ID` / `--redact-all`: the real CLI on a real library;
// what it prints (text and --json), the edits it stores, NOT_FOUND for an unknown finding id.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openLibrary } from '../../../src/services/library/library';
import { listEdits, resolveRecordingSeq } from '../../../src/store';
import { makePiiRecording } from '../../helpers/pii-recording';
import { runCli } from '../../helpers/cli';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cua-cli-redact-text-'));
let id = '';

beforeAll(() => {
  const lib = openLibrary(dir);
  try {
    id = makePiiRecording(lib.db);
  } finally {
    lib.close();
  }
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

function storedRedactions(): { findingId: string; text: string; kind: string }[] {
  const lib = openLibrary(dir);
  try {
    const { seq } = resolveRecordingSeq(lib.db, id);
    return listEdits(lib.db, seq, ['active']).flatMap((e) =>
      e.edit.op === 'redact-text'
        ? [{ findingId: e.edit.findingId, text: e.edit.text, kind: e.edit.kind }]
        : [],
    );
  } finally {
    lib.close();
  }
}

describe('cua-annotator scan --redact', () => {
  it('redacts one finding by id (--json), then every unresolved one, then nothing', async () => {
    const scan = await runCli(['scan', id, '--json', '--library', dir]);
    const findings = (JSON.parse(scan.stdout) as { findings: { id: string; kind: string }[] })
      .findings;
    const card = findings.find((f) => f.kind === 'card')!;

    const one = await runCli(['scan', id, '--redact', card.id, '--json', '--library', dir]);
    expect(one.code, one.stderr).toBe(0);
    expect(JSON.parse(one.stdout)).toEqual({
      redacted: [
        {
          findingId: card.id,
          kind: 'card',
          source: 'window-title',
          stepIndex: null,
          placeholder: '[CARD]',
          editId: expect.any(Number) as number,
        },
      ],
    });
    expect(storedRedactions()).toEqual([
      { findingId: card.id, text: '4111 1111 1111 1111', kind: 'card' },
    ]);

    const all = await runCli(['scan', id, '--redact-all', '--library', dir]);
    expect(all.code, all.stderr).toBe(0);
    const lines = all.stdout.trimEnd().split('\n');
    expect(lines.filter((l) => /^redacted email [0-9a-f]{16} \(/.test(l))).toHaveLength(2);
    expect(lines.at(-1)).toBe(`2 text redactions added to ${id}`);
    expect(all.stdout).not.toMatch(/bob@example\.com|carol@example\.org/);
    expect(storedRedactions().map((r) => r.text)).toEqual([
      '4111 1111 1111 1111',
      'bob@example.com',
      'carol@example.org',
    ]);

    const again = await runCli(['scan', id, '--redact-all', '--library', dir]);
    expect(again.stdout.trim()).toBe(`nothing to redact in ${id}`);
  });

  it('refuses an unknown finding id (NOT_FOUND) and --redact with --redact-all', async () => {
    const [missing, both, help] = await Promise.all([
      runCli(['scan', id, '--redact', 'ffffffffffffffff', '--library', dir]),
      runCli(['scan', id, '--redact', 'x', '--redact-all', '--library', dir]),
      runCli(['scan', '--help']),
    ]);
    expect(missing.code).not.toBe(0);
    expect(missing.stderr).toMatch(/NOT_FOUND|no finding ffffffffffffffff/);
    expect(both.code).not.toBe(0);
    expect(both.stderr).toMatch(/not both/);
    expect(help.stdout).toContain('--redact-all');
  });
});
