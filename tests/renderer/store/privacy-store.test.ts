import '../helpers/setup';
import { describe, expect, it } from 'vitest';
import type { PiiFinding } from '../../../src/shared/domain';
import {
  groupFindings,
  privacySelectors,
  usePrivacyStore,
  type ScanFinding,
} from '../../../src/renderer/store/privacy';
import { useReviewStore } from '../../../src/renderer/store/review';
import type { RecordingDto } from '../../../src/shared/contract';
import { makeRecording } from '../helpers/dto';
import { FakeFailure, flush, installFakeApi, type FakeApi } from '../helpers/fake-api';

const state = () => usePrivacyStore.getState();

function finding(
  kind: PiiFinding['kind'],
  n: number,
  over: Partial<ScanFinding> = {},
): ScanFinding {
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

describe('usePrivacyStore decisions (redact, accept)', () => {
  const review = () => useReviewStore.getState();

  /** A fake service with one recording whose edit version moves with each change. */
  async function opened(
    findings: ScanFinding[],
    over: Partial<RecordingDto> = {},
  ): Promise<FakeApi & { version: () => number }> {
    const api = installFakeApi();
    let rec = makeRecording(3, over);
    const bump = () => (rec = { ...rec, editVersion: rec.editVersion + 1, canUndo: true });
    api.on('recordings:get', () => rec);
    api.on('privacy:scan', () => ({ findings }));
    api.on('privacy:redact', () => bump());
    api.on('edits:apply', () => bump());
    await review().open('rec-1');
    await state().scan('rec-1');
    return Object.assign(api, { version: () => rec.editVersion });
  }

  it('redacts one finding through privacy:redact; the recording view gets the answer', async () => {
    const api = await opened([finding('card', 1), finding('email', 2)]);
    const p = state().redact('rec-1', ['card-1']);
    expect(state().busy).toEqual({ kind: 'redact', findingIds: ['card-1'] });
    await p;
    expect(api.calls.at(-1)).toEqual({
      method: 'privacy:redact',
      payload: { id: 'rec-1', findingIds: ['card-1'] },
    });
    expect(state().busy).toBeNull();
    expect(review().confirmed?.editVersion).toBe(api.version());
    // shown resolved until the rescan (the panel's, on the new edit version) answers
    expect(state().findings.map((f) => [f.id, f.resolved ?? null])).toEqual([
      ['card-1', 'redacted'],
      ['email-2', null],
    ]);
    expect(privacySelectors.blockingCount(state())).toBe(0);
    expect(privacySelectors.openCount(state())).toBe(1);
    expect(privacySelectors.resolvedCount(state())).toBe(1);
  });

  it('redacts every open finding, 500 ids a call; resolved ones are left out', async () => {
    const many = Array.from({ length: 502 }, (_, i) =>
      finding('email', i, i === 0 ? { resolved: 'accepted' } : {}),
    );
    const api = await opened(many);
    await state().redactAllOpen('rec-1');
    const sent = api.calls
      .filter((c) => c.method === 'privacy:redact')
      .map((c) => (c.payload as { findingIds: string[] }).findingIds);
    expect(sent.map((ids) => ids.length)).toEqual([500, 1]);
    expect(sent.flat()).toEqual(many.slice(1).map((f) => f.id));
    expect(state().findings[0]!.resolved).toBe('accepted');
    expect(
      state()
        .findings.slice(1)
        .every((f) => f.resolved === 'redacted'),
    ).toBe(true);
    // nothing open: nothing sent
    const before = api.calls.length;
    await state().redactAllOpen('rec-1');
    expect(api.calls.length).toBe(before);
  });

  it('accepts a finding with its note (trimmed; a blank note is left out)', async () => {
    const api = await opened([finding('card', 1), finding('email', 2)]);
    await state().accept('rec-1', 'card-1', '  test card of the sandbox  ');
    await state().accept('rec-1', 'email-2', '   ');
    expect(api.calls.filter((c) => c.method === 'edits:apply').map((c) => c.payload)).toEqual([
      {
        id: 'rec-1',
        edit: { op: 'pii-accept', findingId: 'card-1', note: 'test card of the sandbox' },
      },
      { id: 'rec-1', edit: { op: 'pii-accept', findingId: 'email-2' } },
    ]);
    expect(state().findings.map((f) => f.resolved)).toEqual(['accepted', 'accepted']);
  });

  it('keeps the coded error of a failed decision until dismissed; the finding stays open', async () => {
    const api = await opened([finding('card', 1)]);
    api.on('privacy:redact', () => {
      throw new FakeFailure(
        'NOT_FOUND',
        'Recording rec-1 has no finding card-1.',
        undefined,
        'Scan.',
      );
    });
    await state().redact('rec-1', ['card-1']);
    expect(state().actionError).toEqual({
      code: 'NOT_FOUND',
      message: 'Recording rec-1 has no finding card-1.',
      fix: 'Scan.',
    });
    expect(state().busy).toBeNull();
    expect(state().findings[0]!.resolved ?? null).toBeNull();
    state().dismissActionError();
    expect(state().actionError).toBeNull();
  });

  it('asks before changing an accepted recording: sent with force after a yes, not on a no', async () => {
    const api = await opened([finding('card', 1), finding('email', 2)], {
      reviewStatus: 'accepted',
    });
    const no = state().redact('rec-1', ['email-2']);
    await flush();
    expect(review().lockPrompt).toBe(true);
    expect(state().busy).toEqual({ kind: 'redact', findingIds: ['email-2'] });
    review().cancelLockedEdit();
    await no;
    expect(state().busy).toBeNull();
    expect(state().findings[1]!.resolved ?? null).toBeNull();
    const yes = state().redact('rec-1', ['card-1']);
    await flush();
    expect(review().lockPrompt).toBe(true);
    expect(api.methods()).not.toContain('privacy:redact');
    review().confirmLockedEdit();
    await yes;
    expect(api.calls.at(-1)).toEqual({
      method: 'privacy:redact',
      payload: { id: 'rec-1', findingIds: ['card-1'], force: true },
    });
    expect(state().findings[0]!.resolved).toBe('redacted');
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
