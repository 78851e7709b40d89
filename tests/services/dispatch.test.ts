// The dispatcher: every outcome is a Result envelope with the right code; internal errors are
// logged with their stack and never sent.
import { afterAll, describe, expect, it } from 'vitest';
import { API_METHODS, type RecordingDto } from '../../src/shared/contract';
import { dispatch } from '../../src/services/dispatch';
import { handlers } from '../../src/services/handlers';
import { replaceSteps } from '../../src/store';
import { serviceContext } from '../helpers/context';
import { tempLibrary } from '../helpers/library';
import { clickStep, makeRecording } from '../helpers/store';

const t = tempLibrary();
afterAll(() => t.cleanup());

const { id, seq } = makeRecording(t.lib.db, { task: 'Dispatch me' });
replaceSteps(
  t.lib.db,
  seq,
  ['a', 'b'].map((s, index) => clickStep(s, index, `click ${s}`)),
  'test',
);

describe('dispatch', () => {
  it('has a handler for exactly the contract methods', () => {
    expect(Object.keys(handlers).sort()).toEqual([...API_METHODS].sort());
  });

  it('answers unknown methods with UNKNOWN_METHOD (prototype names included)', async () => {
    const { ctx } = serviceContext(t.lib);
    for (const method of ['recordings:explode', '__proto__', 'constructor', 'toString', '']) {
      const r = await dispatch(ctx, method, {});
      expect(r.ok ? null : r.error.code, method).toBe('UNKNOWN_METHOD');
    }
  });

  it('answers invalid payloads with INVALID_PAYLOAD naming the field', async () => {
    const { ctx, events } = serviceContext(t.lib);
    const r = await dispatch(ctx, 'edits:apply', {
      id,
      edit: { op: 'set-action', stepId: 'a', calls: [{ name: 'click', args: { x: 0.5 } }] },
    });
    expect(r).toEqual({
      ok: false,
      error: {
        code: 'INVALID_PAYLOAD',
        message:
          'Invalid edits:apply payload: edit.calls[0].args.x must be a float in [0, 1] like {"float": 0.5}, got 0.5',
        details: { method: 'edits:apply', field: 'edit.calls[0].args.x' },
      },
    });
    expect(events).toEqual([]);
  });

  it('passes AppError codes through', async () => {
    const { ctx } = serviceContext(t.lib);
    const missing = await dispatch(ctx, 'recordings:get', { id: 'no-such-recording' });
    expect(missing.ok ? null : missing.error.code).toBe('NOT_FOUND');
    // the contract takes full ids only: a unique prefix (fine on the CLI) deletes nothing
    const prefix = await dispatch(ctx, 'recordings:delete', { id: id.slice(0, 8) });
    expect(prefix.ok ? null : prefix.error.code).toBe('NOT_FOUND');
    expect((await dispatch(ctx, 'recordings:get', { id })).ok).toBe(true);
    const undo = await dispatch(ctx, 'edits:undo', { id });
    expect(undo.ok ? null : undo.error).toEqual({
      code: 'INVALID_STATE',
      message: `Recording ${id} has no edit to undo.`,
      details: { id },
    });
    const edit = await dispatch(ctx, 'edits:apply', { id, edit: { op: 'delete', stepId: 'zz' } });
    expect(edit.ok ? null : edit.error.code).toBe('EDIT_INVALID');
    const keyframes = await dispatch(ctx, 'keyframes:compute', { id });
    expect(keyframes.ok ? null : keyframes.error.code).toBe('NOT_FOUND');
  });

  it('returns values as plain JSON data and emits recordings:changed after a change', async () => {
    const { ctx, events } = serviceContext(t.lib);
    const r = await dispatch(ctx, 'edits:apply', {
      id,
      edit: { op: 'relabel', stepId: 'b', label: 'Press the button' },
    });
    expect(r.ok).toBe(true);
    const dto = (r.ok ? r.value : null) as RecordingDto;
    expect(JSON.parse(JSON.stringify(dto))).toEqual(dto);
    expect(dto.steps.map((s) => [s.id, s.label, s.isEdited])).toEqual([
      ['a', 'click a', false],
      ['b', 'Press the button', true],
    ]);
    expect([dto.canUndo, dto.canRedo, dto.video]).toEqual([true, false, null]);
    // (the edit also queues the changed steps' keyframes: keyframes:progress, keyframe-jobs.ts)
    expect(events.filter(([e]) => e !== 'keyframes:progress')).toEqual([
      ['recordings:changed', { id }],
    ]);
    expect(events).toContainEqual([
      'keyframes:progress',
      expect.objectContaining({ phase: 'queued' }),
    ]);
    const list = await dispatch(ctx, 'recordings:list', { search: 'dispatch' });
    expect(list.ok ? list.value : null).toMatchObject({ total: 1, items: [{ id, stepCount: 2 }] });
  });

  it('turns anything else into INTERNAL, logging the stack and sending only a summary', async () => {
    const broken = tempLibrary();
    broken.lib.db.close();
    const { ctx, logs } = serviceContext(broken.lib);
    const r = await dispatch(ctx, 'recordings:list', {});
    expect(r).toEqual({
      ok: false,
      error: {
        code: 'INTERNAL',
        message: 'recordings:list failed unexpectedly; the details are in the service log.',
      },
    });
    expect(logs).toHaveLength(1);
    expect(logs[0]).toMatch(
      /^dispatch recordings:list failed: TypeError: .*not open[\s\S]*\n\s+at /,
    );
    broken.cleanup();
  });
});
