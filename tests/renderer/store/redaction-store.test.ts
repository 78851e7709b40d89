import '../helpers/setup';
import { describe, expect, it } from 'vitest';
import type { RecordingDto } from '../../../src/shared/contract';
import { useRedactionStore } from '../../../src/renderer/store/redaction';
import { useReviewStore } from '../../../src/renderer/store/review';
import { makeRecording } from '../helpers/dto';
import { FakeFailure, flush, installFakeApi, type FakeApi } from '../helpers/fake-api';

const state = () => useRedactionStore.getState();
const BOX = { x: 10, y: 20, width: 30, height: 40 };

/** A fake service with one recording; box edits are kept and listed by privacy:redactions. */
async function opened(over: Partial<RecordingDto> = {}): Promise<FakeApi> {
  const api = installFakeApi();
  let rec = makeRecording(2, over);
  const boxes: unknown[] = [];
  api.on('recordings:get', () => rec);
  api.on('edits:apply', (p) => {
    const { edit } = p as { edit: { startMs: number; endMs: number; box: typeof BOX } };
    rec = { ...rec, editVersion: rec.editVersion + 1 };
    boxes.push({
      editId: rec.editVersion,
      startMs: edit.startMs,
      endMs: edit.endMs,
      box: edit.box,
    });
    return rec;
  });
  api.on('privacy:redactions', () => ({
    boxes: [...boxes],
    excluded: [{ startMs: 100, endMs: null }],
    regions: [{ startMs: 50, endMs: 70, box: { x: 1, y: 2, width: 3, height: 4 } }],
  }));
  await useReviewStore.getState().open('rec-1');
  return api;
}

describe('useRedactionStore', () => {
  it('reads the redactions once per edit version, and afresh for another recording', async () => {
    const api = await opened();
    await state().load('rec-1', 0);
    await state().load('rec-1', 0);
    expect(api.methods().filter((m) => m === 'privacy:redactions')).toHaveLength(1);
    expect([state().boxes, state().excluded, state().regions, state().loadedVersion]).toEqual([
      [],
      [{ startMs: 100, endMs: null }],
      [{ startMs: 50, endMs: 70, box: { x: 1, y: 2, width: 3, height: 4 } }],
      0,
    ]);
    await state().load('rec-1', 3);
    expect(api.methods().filter((m) => m === 'privacy:redactions')).toHaveLength(2);
    api.hold();
    const other = state().load('rec-2', 0);
    // another recording: the old redactions go at once
    expect([state().recordingId, state().excluded]).toEqual(['rec-2', []]);
    await api.release();
    await other;
    expect(state().excluded).toHaveLength(1);
  });

  it('drafts a box over [now, now + 1 s], moves its ends and applies it as a redact-box edit', async () => {
    const api = await opened();
    await state().load('rec-1', 0);
    state().startDrawing(2500.4);
    expect(state().draft).toEqual({ box: null, startMs: 2500, endMs: 3500 });
    // nothing to apply without a box
    await state().apply('rec-1');
    expect(api.methods()).not.toContain('edits:apply');
    state().setBox(BOX);
    state().setStart(2000);
    state().setEnd(4000.6);
    expect(state().draft).toEqual({ box: BOX, startMs: 2000, endMs: 4001 });
    await state().apply('rec-1');
    expect(api.calls.filter((c) => c.method === 'edits:apply').map((c) => c.payload)).toEqual([
      {
        id: 'rec-1',
        edit: { op: 'redact-box', stepId: null, startMs: 2000, endMs: 4001, box: BOX },
      },
    ]);
    // the mode ends, the view has the new version and the layer the new box
    expect(state().draft).toBeNull();
    expect(useReviewStore.getState().confirmed?.editVersion).toBe(1);
    expect(state().loadedVersion).toBe(1);
    expect(state().boxes).toEqual([{ editId: 1, startMs: 2000, endMs: 4001, box: BOX }]);
  });

  it('refuses an end before the start, keeps a failed apply in draft with its error', async () => {
    const api = await opened();
    state().startDrawing(1000);
    state().setBox(BOX);
    state().setEnd(500);
    await state().apply('rec-1');
    expect(api.methods()).not.toContain('edits:apply');
    state().setEnd(1500);
    api.on('edits:apply', () => {
      throw new FakeFailure(
        'INVALID_PAYLOAD',
        'edit.box.width must be ≥ 1',
        undefined,
        'Draw again.',
      );
    });
    await state().apply('rec-1');
    expect(state().error).toEqual({
      code: 'INVALID_PAYLOAD',
      message: 'edit.box.width must be ≥ 1',
      fix: 'Draw again.',
    });
    expect(state().draft?.box).toEqual(BOX);
    expect(state().applying).toBe(false);
    state().cancelDrawing();
    expect([state().draft, state().error]).toEqual([null, null]);
  });

  it('asks before changing an accepted recording and sends with force after the yes', async () => {
    const api = await opened({ reviewStatus: 'accepted' });
    state().startDrawing(0);
    state().setBox(BOX);
    const p = state().apply('rec-1');
    await flush();
    expect(useReviewStore.getState().lockPrompt).toBe(true);
    expect(state().applying).toBe(true);
    expect(api.methods()).not.toContain('edits:apply');
    useReviewStore.getState().confirmLockedEdit();
    await p;
    expect(api.calls.find((c) => c.method === 'edits:apply')?.payload).toMatchObject({
      force: true,
      edit: { op: 'redact-box', box: BOX },
    });
    expect([state().applying, state().draft]).toEqual([false, null]);
  });
});
