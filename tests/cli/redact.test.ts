// `cua-annotator redact`: the real CLI on a real library: add a box redaction (times on the
// video, ms or s), list it, undo it by id (only the latest edit), and the usage errors.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openLibrary } from '../../src/services/library/library';
import { listEdits } from '../../src/store';
import { runCli } from '../helpers/cli';
import { makeRecording } from '../helpers/store';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cua-cli-redact-'));
let id = '';
let seq = 0;

beforeAll(() => {
  const lib = openLibrary(dir);
  try {
    const rec = makeRecording(lib.db, { task: 'Open the settings' });
    id = rec.id;
    seq = rec.seq;
  } finally {
    lib.close();
  }
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

function edits() {
  const lib = openLibrary(dir);
  try {
    return listEdits(lib.db, seq);
  } finally {
    lib.close();
  }
}

describe('cua-annotator redact', () => {
  it('adds a redact-box edit (--from/--to in ms or s on the video), lists it and undoes it', async () => {
    const add = await runCli([
      ...['redact', id.slice(0, 8), '--box', '10,20,30,40'],
      ...['--from', '1.5s', '--to', '2500', '--json', '--library', dir],
    ]);
    expect(add.code, add.stderr).toBe(0);
    const added = (JSON.parse(add.stdout) as { redaction: Record<string, unknown> }).redaction;
    expect(added).toMatchObject({
      state: 'active',
      startMs: 1500,
      endMs: 2500,
      box: { x: 10, y: 20, width: 30, height: 40 },
    });
    const log = edits();
    expect(log.at(-1)!.edit).toEqual({
      op: 'redact-box',
      stepId: null,
      startMs: 1500,
      endMs: 2500,
      box: { x: 10, y: 20, width: 30, height: 40 },
    });
    expect(log.at(-1)!.id).toBe(added.editId);

    const second = await runCli([
      ...['redact', id, '--box', '0,0,5,5', '--from', '0ms', '--to', '0.1s', '--library', dir],
    ]);
    expect(second.code, second.stderr).toBe(0);
    expect(second.stdout).toMatch(/added box redaction \d+ to /);

    const list = await runCli(['redact', id, '--list', '--json', '--library', dir]);
    expect(list.code, list.stderr).toBe(0);
    const items = (JSON.parse(list.stdout) as { redactions: { editId: number }[] }).redactions;
    expect(items).toHaveLength(2);
    const human = await runCli(['redact', id, '--list', '--library', dir]);
    expect(human.stdout).toMatch(/1\.500 s – 2\.500 s {2}box 10,20,30,40/);

    // only the latest edit can be undone: the first is refused, the second goes
    const refused = await runCli([
      'redact',
      id,
      '--undo',
      String(items[0]!.editId),
      '--library',
      dir,
    ]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/INVALID_STATE.*not its latest edit/);
    const undo = await runCli([
      ...['redact', id, '--undo', String(items[1]!.editId), '--json', '--library', dir],
    ]);
    expect(undo.code, undo.stderr).toBe(0);
    expect(JSON.parse(undo.stdout)).toEqual({ undone: { editId: items[1]!.editId } });
    expect(edits().map((e) => e.state)).toEqual(['active', 'undone']);
    const gone = await runCli(['redact', id, '--undo', '999999', '--library', dir]);
    expect(gone.code).toBe(2);
    expect(gone.stderr).toMatch(/NOT_FOUND/);
  });

  it('issue 26 item 23: clock times (0:30, 1:02.5) and a note saying a bare number is ms', async () => {
    const clock = await runCli([
      ...['redact', id, '--box', '1,1,2,2', '--from', '0:30', '--to', '1:02.5', '--json'],
      ...['--library', dir],
    ]);
    expect(clock.code, clock.stderr).toBe(0);
    const added = (JSON.parse(clock.stdout) as { redaction: { startMs: number; endMs: number } })
      .redaction;
    expect([added.startMs, added.endMs]).toEqual([30_000, 62_500]);
    const bare = await runCli([
      ...['redact', id, '--box', '1,1,2,2', '--from', '0', '--to', '30', '--library', dir],
    ]);
    expect(bare.code, bare.stderr).toBe(0);
    expect(bare.stderr).toContain(
      'note: --to 30 is read as 30 ms (0.030 s); write 30s for seconds',
    );
    const bad = await runCli([
      ...['redact', id, '--box', '1,1,2,2', '--from', '0:75', '--to', '1:00', '--library', dir],
    ]);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/not a clock time/);
  });

  it('refuses bad boxes, times and mode mixes with usage errors', async () => {
    for (const args of [
      ['--box', '1,2,3', '--from', '0', '--to', '1'],
      ['--box', '1,2,0,4', '--from', '0', '--to', '1'],
      ['--box', '1,2,3,4', '--from', 'soon', '--to', '1'],
      ['--box', '1,2,3,4', '--from', '2s', '--to', '1s'],
      ['--box', '1,2,3,4'],
      ['--box', '1,2,3,4', '--from', '0', '--to', '1', '--list'],
    ]) {
      const r = await runCli(['redact', id, ...args, '--library', dir]);
      expect(r.code, args.join(' ')).toBe(1);
      expect(r.stderr).toMatch(/^error: /);
    }
    const help = await runCli(['redact', '--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/--box X,Y,W,H/);
  });
});
