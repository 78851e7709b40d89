import '../helpers/setup';
import { describe, expect, it } from 'vitest';
import {
  canGoOn,
  overrideComment,
  useCheckGateStore,
  type CheckProblemDto,
  type GateDecision,
} from '../../../src/renderer/store/check';
import { FakeFailure, installFakeApi } from '../helpers/fake-api';

const state = () => useCheckGateStore.getState();

function problem(
  code: CheckProblemDto['code'],
  severity: 'error' | 'warning',
  step: number | null = null,
): CheckProblemDto {
  return { code, stepIndex: step, message: `${code} message`, fix: `${code} fix`, severity };
}

// a request whose decisions are recorded
async function request(ids: string[], purpose: 'submit' | 'upload' = 'submit') {
  const decisions: GateDecision[] = [];
  await state().request(ids, purpose, (d) => decisions.push(d));
  return decisions;
}

describe('useCheckGateStore', () => {
  it('runs the action at once when every check is clean (no dialog)', async () => {
    const api = installFakeApi();
    api.on('recordings:check', () => ({ ok: true, problems: [] }));
    const decisions = await request(['a', 'b'], 'upload');
    expect(api.calls).toEqual([
      { method: 'recordings:check', payload: { id: 'a' } },
      { method: 'recordings:check', payload: { id: 'b' } },
    ]);
    expect(decisions).toEqual([{ override: null }]);
    expect(state().open).toBe(false);
  });

  it('warnings only: the dialog opens; "Fix first" runs nothing, "go on" runs it', async () => {
    const api = installFakeApi();
    api.on('recordings:check', () => ({
      ok: true,
      problems: [problem('LONG_IDLE', 'warning', 3)],
    }));
    const decisions = await request(['a']);
    expect(state()).toMatchObject({ open: true, status: 'ready' });
    expect(canGoOn(state())).toBe(true);
    state().fixFirst();
    expect(state().open).toBe(false);
    state().goOn(); // nothing pending any more
    expect(decisions).toEqual([]);

    const again = await request(['a']);
    state().goOn();
    expect(again).toEqual([{ override: null }]);
    expect(state().open).toBe(false);
  });

  it('errors block an upload: no way on but "Fix first"', async () => {
    const api = installFakeApi();
    api.on('recordings:check', () => ({
      ok: false,
      problems: [problem('PII_UNRESOLVED', 'error', 1)],
    }));
    const decisions = await request(['a'], 'upload');
    state().setReason('I know');
    expect(canGoOn(state())).toBe(false);
    state().goOn();
    expect(decisions).toEqual([]);
    expect(state().open).toBe(true);
  });

  it('errors before a review move: go on only with a reason, which names the codes', async () => {
    const api = installFakeApi();
    api.on('recordings:check', () => ({
      ok: false,
      problems: [
        problem('TASK_MISSING', 'error'),
        problem('KEYFRAME_MISSING', 'error', 2),
        problem('NO_TERMINATE', 'warning'),
        problem('COORDINATE_OFF_SCREEN', 'error', 4),
        problem('COORDINATE_OFF_SCREEN', 'error', 5),
      ],
    }));
    const decisions = await request(['a']);
    expect(canGoOn(state())).toBe(false);
    state().goOn();
    expect(decisions).toEqual([]);
    state().setReason('  keyframes come with the export  ');
    expect(canGoOn(state())).toBe(true);
    state().goOn();
    expect(decisions).toEqual([
      {
        override: {
          reason: 'keyframes come with the export',
          codes: ['TASK_MISSING', 'KEYFRAME_MISSING step 2', 'COORDINATE_OFF_SCREEN ×2'],
          purpose: 'submit',
        },
      },
    ]);
    expect(overrideComment('looks fine', decisions[0]!)).toBe(
      'looks fine\n\nSubmitted despite check errors (TASK_MISSING, KEYFRAME_MISSING step 2, ' +
        'COORDINATE_OFF_SCREEN ×2). ' +
        'Reason: keyframes come with the export',
    );
    expect(overrideComment(undefined, { override: null })).toBeUndefined();
    // issue 26 item 23: an accept says so
    expect(
      overrideComment(undefined, { override: { reason: 'r', codes: ['X'], purpose: 'accept' } }),
    ).toBe('Accepted despite check errors (X). Reason: r');
  });

  it('a check that fails shows its error and runs nothing', async () => {
    const api = installFakeApi();
    api.on('recordings:check', () => {
      throw new FakeFailure('NOT_FOUND', 'No recording with id "a".');
    });
    const decisions = await request(['a']);
    expect(state()).toMatchObject({ open: true, status: 'error' });
    expect(state().error).toContain('No recording');
    expect(canGoOn(state())).toBe(false);
    expect(decisions).toEqual([]);
  });
});
