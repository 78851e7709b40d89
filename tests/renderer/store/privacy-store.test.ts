import '../helpers/setup';
import { describe, expect, it } from 'vitest';
import type { PiiFinding } from '../../../src/shared/domain';
import {
  groupFindings,
  privacySelectors,
  usePrivacyStore,
} from '../../../src/renderer/store/privacy';
import { FakeFailure, installFakeApi } from '../helpers/fake-api';

const state = () => usePrivacyStore.getState();

function finding(kind: PiiFinding['kind'], n: number, over: Partial<PiiFinding> = {}): PiiFinding {
  return {
    id: `${kind}-${n}`,
    kind,
    source: 'typed',
    stepIndex: n,
    tMs: 1000 * n,
    excerpt: `x ${'*'.repeat(6)} y`,
    ...over,
  };
}

describe('usePrivacyStore', () => {
  it('scans a recording and groups the findings, blocking kinds first', async () => {
    const api = installFakeApi();
    const findings = [
      finding('email', 0, { source: 'task', stepIndex: null, tMs: null }),
      finding('card', 2),
      finding('ip', 3),
      finding('email', 4),
      finding('secret', 5, { source: 'window-title' }),
    ];
    api.on('privacy:scan', () => ({ findings }));
    const p = state().scan('rec-1');
    expect(state().status).toBe('scanning');
    await p;
    expect(api.calls).toEqual([{ method: 'privacy:scan', payload: { id: 'rec-1' } }]);
    expect(state().status).toBe('done');
    expect(state().scannedAtMs).not.toBeNull();
    const groups = privacySelectors.groups(state());
    expect(groups.map((g) => [g.kind, g.isBlocking, g.findings.map((f) => f.id)])).toEqual([
      ['card', true, ['card-2']],
      ['secret', true, ['secret-5']],
      ['email', false, ['email-0', 'email-4']],
      ['ip', false, ['ip-3']],
    ]);
    // memoised: the same array while the findings are the same
    expect(privacySelectors.groups(state())).toBe(groups);
    expect(privacySelectors.blockingCount(state())).toBe(2);
    expect(privacySelectors.isFor(state(), 'rec-1')).toBe(true);
    expect(privacySelectors.isFor(state(), 'rec-2')).toBe(false);
  });

  it('keeps the coded error of a failed scan and clears it on the next one', async () => {
    const api = installFakeApi();
    api.on('privacy:scan', () => {
      throw new FakeFailure('NOT_FOUND', 'No recording matches "gone".', undefined, 'List them.');
    });
    await state().scan('gone');
    expect(state().status).toBe('error');
    expect(state().error).toEqual({
      code: 'NOT_FOUND',
      message: 'No recording matches "gone".',
      fix: 'List them.',
    });
    expect(state().findings).toEqual([]);
    api.on('privacy:scan', () => ({ findings: [] }));
    await state().scan('gone');
    expect([state().status, state().error, state().findings]).toEqual(['done', null, []]);
  });

  it('drops an older scan answered after a newer one, and findings of another recording', async () => {
    const api = installFakeApi();
    api.on('privacy:scan', (p) => ({
      findings: [finding('email', (p as { id: string }).id === 'a' ? 1 : 2)],
    }));
    await state().scan('a');
    expect(state().findings.map((f) => f.id)).toEqual(['email-1']);
    api.hold();
    const first = state().scan('a');
    const second = state().scan('b');
    // another recording: the old findings go at once, not after the answer
    expect(state().recordingId).toBe('b');
    expect(state().findings).toEqual([]);
    await api.release('reversed');
    await Promise.all([first, second]);
    expect(state().recordingId).toBe('b');
    expect(state().findings.map((f) => f.id)).toEqual(['email-2']);
    expect(state().status).toBe('done');
  });

  it('rescanning the same recording keeps its findings shown until the answer', async () => {
    const api = installFakeApi();
    api.on('privacy:scan', () => ({ findings: [finding('card', 1)] }));
    await state().scan('a');
    api.hold();
    const again = state().scan('a');
    expect(state().status).toBe('scanning');
    expect(state().findings.map((f) => f.id)).toEqual(['card-1']);
    await api.release();
    await again;
    expect(state().status).toBe('done');
  });
});

describe('groupFindings', () => {
  it('leaves out kinds without findings and keeps the order within a kind', () => {
    expect(groupFindings([])).toEqual([]);
    const groups = groupFindings([finding('phone', 3), finding('iban', 1), finding('phone', 1)]);
    expect(groups.map((g) => [g.kind, g.findings.map((f) => f.id)])).toEqual([
      ['iban', ['iban-1']],
      ['phone', ['phone-3', 'phone-1']],
    ]);
  });
});
