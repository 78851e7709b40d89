// The review UI's privacy methods through the real dispatcher on a real SQLite library:
// `privacy:redact` (finding ids → `redact-text` edits with the unmasked text looked up here, the
// recording's page data back, NOT_FOUND for an unknown id with nothing stored, the review lock,
// undo reopening the finding) and `privacy:redactions` (active box edits and excluded intervals).
import { afterAll, describe, expect, it } from 'vitest';
import { dispatch } from '../../../src/services/dispatch';
import {
  validateMethodOutput,
  type ApiMethod,
  type ApiMethods,
} from '../../../src/shared/contract';
import { insertMark, listEdits, resolveRecordingSeq } from '../../../src/store';
import { serviceContext } from '../../helpers/context';
import { tempLibrary } from '../../helpers/library';
import { makePiiRecording } from '../../helpers/pii-recording';

const t = tempLibrary();
const { ctx, services, events } = serviceContext(t.lib);

afterAll(async () => {
  await services.close();
  t.cleanup();
});

type Finding = ApiMethods['privacy:scan']['output']['findings'][number];

async function call<M extends ApiMethod>(method: M, payload: unknown) {
  const r = await dispatch(ctx, method, payload);
  if (r.ok) {
    const checked = validateMethodOutput(method, r.value);
    expect(checked.ok ? null : checked, method).toBeNull();
  }
  return r as
    | { ok: true; value: ApiMethods[M]['output'] }
    | { ok: false; error: { code: string; message: string; details?: unknown } };
}

async function ok<M extends ApiMethod>(method: M, payload: unknown) {
  const r = await call(method, payload);
  if (!r.ok) {
    throw new Error(`${method}: ${r.error.code} ${r.error.message}`);
  }
  return r.value;
}

const scan = async (id: string): Promise<Finding[]> => (await ok('privacy:scan', { id })).findings;
const edits = (id: string) =>
  listEdits(t.lib.db, resolveRecordingSeq(t.lib.db, id).seq, ['active']).map((e) => e.edit);

describe('privacy:redact', () => {
  it('redacts a finding by id, answers with the page data and announces the change', async () => {
    const id = makePiiRecording(t.lib.db);
    const card = (await scan(id)).find((f) => f.kind === 'card')!;
    expect(card.resolved).toBeNull();
    const before = (await ok('recordings:get', { id })).editVersion;
    events.length = 0;
    const dto = await ok('privacy:redact', { id, findingIds: [card.id] });
    expect(dto.id).toBe(id);
    expect(dto.editVersion).toBeGreaterThan(before);
    expect(dto.canUndo).toBe(true);
    expect(events).toContainEqual(['recordings:changed', { id }]);
    // the service looked the unmasked text up: the edit holds the number, the scan says redacted
    expect(edits(id)).toEqual([
      { op: 'redact-text', findingId: card.id, text: '4111 1111 1111 1111', kind: 'card' },
    ]);
    const after = await scan(id);
    expect(after.find((f) => f.id === card.id)!.resolved).toBe('redacted');
    expect(
      after
        .filter((f) => f.resolved === null)
        .map((f) => f.kind)
        .sort(),
    ).toEqual(['email', 'email']);
    // a second redaction of the same finding stores nothing more
    await ok('privacy:redact', { id, findingIds: [card.id] });
    expect(edits(id)).toHaveLength(1);
    // undo reopens it
    await ok('edits:undo', { id });
    expect((await scan(id)).find((f) => f.id === card.id)!.resolved).toBeNull();
    expect(edits(id)).toEqual([]);
  });

  it('redacts several findings as one edit each (undone newest first)', async () => {
    const id = makePiiRecording(t.lib.db);
    const all = await scan(id);
    expect(all).toHaveLength(3);
    await ok('privacy:redact', { id, findingIds: all.map((f) => f.id) });
    expect(edits(id).map((e) => e.op)).toEqual(['redact-text', 'redact-text', 'redact-text']);
    expect((await scan(id)).every((f) => f.resolved === 'redacted')).toBe(true);
    await ok('edits:undo', { id });
    expect((await scan(id)).filter((f) => f.resolved === null)).toHaveLength(1);
  });

  it('refuses an unknown finding id (NOT_FOUND, nothing stored) and bad payloads', async () => {
    const id = makePiiRecording(t.lib.db);
    const [first] = await scan(id);
    const r = await call('privacy:redact', { id, findingIds: [first!.id, 'no-such-finding'] });
    expect(r.ok ? null : r.error.code).toBe('NOT_FOUND');
    expect(r.ok ? '' : r.error.message).toContain('no-such-finding');
    expect(edits(id)).toEqual([]);
    const gone = await call('privacy:redact', { id: 'no-such-recording', findingIds: ['x'] });
    expect(gone.ok ? null : gone.error.code).toBe('NOT_FOUND');
    for (const findingIds of [[], [''], Array.from({ length: 501 }, (_, i) => `f${i}`)]) {
      const bad = await call('privacy:redact', { id, findingIds });
      expect(bad.ok ? null : bad.error.code).toBe('INVALID_PAYLOAD');
    }
  });

  it('keeps an accepted recording locked unless forced (which returns it to review)', async () => {
    const id = makePiiRecording(t.lib.db);
    await ok('reviews:set-status', { id, status: 'accepted' });
    const [first] = await scan(id);
    const locked = await call('privacy:redact', { id, findingIds: [first!.id] });
    expect(locked.ok ? null : locked.error.code).toBe('REVIEW_LOCKED');
    expect(edits(id)).toEqual([]);
    const dto = await ok('privacy:redact', { id, findingIds: [first!.id], force: true });
    expect(dto.reviewStatus).not.toBe('accepted');
    expect(edits(id)).toHaveLength(1);
  });
});

describe('privacy:redactions', () => {
  it('lists the active box redactions, the excluded intervals and the excluded windows rectangles', async () => {
    const id = makePiiRecording(t.lib.db);
    expect(await ok('privacy:redactions', { id })).toEqual({
      boxes: [],
      excluded: [],
      regions: [],
    });
    const box = { x: 10, y: 20, width: 30, height: 40 };
    await ok('edits:apply', {
      id,
      edit: { op: 'redact-box', stepId: null, startMs: 100, endMs: 900, box },
    });
    await ok('edits:apply', {
      id,
      edit: { op: 'redact-box', stepId: null, startMs: 0, endMs: 50, box: { ...box, x: 0 } },
    });
    await ok('edits:undo', { id });
    const { seq } = resolveRecordingSeq(t.lib.db, id);
    insertMark(t.lib.db, seq, { tMs: 2000, endMs: 3000, kind: 'excluded', data: {} });
    insertMark(t.lib.db, seq, { tMs: 5000, endMs: null, kind: 'excluded', data: {} });
    insertMark(t.lib.db, seq, { tMs: 4000, endMs: 4100, kind: 'pause', data: {} });
    // excluded windows on the screen (issue 26, item 6): a rectangle; unreadable bounds count as
    // an interval, as the exports blank the whole frame then
    const rule = 'title:/secret/';
    insertMark(t.lib.db, seq, {
      tMs: 1000,
      endMs: null,
      kind: 'excluded-region',
      data: { rule, bounds: box },
    });
    insertMark(t.lib.db, seq, { tMs: 6000, endMs: 7000, kind: 'excluded-region', data: { rule } });
    const r = await ok('privacy:redactions', { id });
    expect(r.boxes).toEqual([{ editId: expect.any(Number), startMs: 100, endMs: 900, box }]);
    expect(r.excluded).toEqual([
      { startMs: 2000, endMs: 3000 },
      { startMs: 5000, endMs: null },
      { startMs: 6000, endMs: 7000 },
    ]);
    expect(r.regions).toEqual([{ startMs: 1000, endMs: null, box }]);
    const gone = await call('privacy:redactions', { id: 'nope' });
    expect(gone.ok ? null : gone.error.code).toBe('NOT_FOUND');
  });
});
