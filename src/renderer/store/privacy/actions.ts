// Privacy store actions: `privacy:scan` of the open recording (the newest scan winning), and the
// reviewer's decisions on its findings: redact (`privacy:redact`, the service looks up the text)
// and accept (an `edits:apply` of a `pii-accept` edit). Both go through the review store's
// ordered queue (so they land after pending edits, and an accepted recording asks first); its
// answer refreshes the recording view, and the panel rescans on the new edit version.
import type { StateCreator } from 'zustand';
import type { RecordingDto } from '../../../shared/contract';
import { ApiError, getApiClient } from '../../api';
import { useReviewStore, type RecordingCallOutcome } from '../review';
import {
  initialPrivacyState,
  type PrivacyAction,
  type PrivacyError,
  type PrivacyState,
  type ScanFinding,
} from './initialState';

/** Most finding ids in one `privacy:redact` call (the contract's limit). */
export const REDACT_BATCH = 500;

/** Privacy store actions. */
export type PrivacyActions = {
  /** Scans the recording (again); findings of another recording are dropped at once. */
  scan: (id: string) => Promise<void>;
  /** Redacts findings' text (one `redact-text` edit each). */
  redact: (id: string, findingIds: readonly string[]) => Promise<void>;
  /** Redacts every open finding shown (neither redacted nor accepted). */
  redactAllOpen: (id: string) => Promise<void>;
  /** Marks a finding acceptable, with an optional note (a `pii-accept` edit). */
  accept: (id: string, findingId: string, note?: string) => Promise<void>;
  /** Hides the error of the last redaction or acceptance. */
  dismissActionError: () => void;
  /** Forgets everything (another recording opened, tests). */
  clear: () => void;
};

/** The privacy store type. */
export type PrivacyStore = PrivacyState & PrivacyActions;

function shownError(e: unknown): PrivacyError {
  return e instanceof ApiError
    ? { code: e.code, message: e.message, fix: e.fix ?? null }
    : { code: 'INTERNAL', message: e instanceof Error ? e.message : String(e), fix: null };
}

/** `findings` with those of `ids` marked resolved (until the rescan answers). */
function markResolved(
  findings: ScanFinding[],
  ids: readonly string[],
  resolved: 'accepted' | 'redacted',
): ScanFinding[] {
  const set = new Set(ids);
  return findings.map((f) => (set.has(f.id) && !f.resolved ? { ...f, resolved } : f));
}

// The actions slice of the privacy store.
export const createPrivacyActions: StateCreator<PrivacyStore, [], [], PrivacyActions> = (
  set,
  get,
) => {
  /** Runs one decision through the review store's queue and shows how it ended. */
  const decide = async (
    id: string,
    action: PrivacyAction,
    calls: ((rid: string, force: { force?: true }) => Promise<RecordingDto>)[],
  ): Promise<void> => {
    if (get().busy || action.findingIds.length === 0) {
      return;
    }
    set({ busy: action, actionError: null });
    let outcome: RecordingCallOutcome = { state: 'cancelled' };
    for (const call of calls) {
      outcome = await useReviewStore.getState().runRecordingCall(call);
      if (outcome.state !== 'done') {
        break;
      }
    }
    if (get().recordingId !== id) {
      set({ busy: null });
      return;
    }
    if (outcome.state === 'failed') {
      set({ busy: null, actionError: shownError(outcome.error) });
    } else if (outcome.state === 'done') {
      set((s) => ({
        busy: null,
        findings: markResolved(
          s.findings,
          action.findingIds,
          action.kind === 'redact' ? 'redacted' : 'accepted',
        ),
      }));
    } else {
      set({ busy: null });
    }
  };

  return {
    scan: async (id) => {
      const seq = get().scanSeq + 1;
      set((s) => ({
        ...(s.recordingId === id ? s : { ...initialPrivacyState(), recordingId: id }),
        status: 'scanning',
        error: null,
        scanSeq: seq,
      }));
      try {
        const { findings } = await getApiClient().call('privacy:scan', { id });
        if (get().scanSeq === seq) {
          set({ status: 'done', findings, error: null, scannedAtMs: Date.now() });
        }
      } catch (e) {
        if (get().scanSeq === seq) {
          set({ status: 'error', findings: [], error: shownError(e) });
        }
      }
    },
    redact: (id, findingIds) => {
      const ids = [...findingIds];
      const batches: string[][] = [];
      for (let i = 0; i < ids.length; i += REDACT_BATCH) {
        batches.push(ids.slice(i, i + REDACT_BATCH));
      }
      return decide(
        id,
        { kind: 'redact', findingIds: ids },
        batches.map(
          (batch) => (rid, force) =>
            getApiClient().call('privacy:redact', { id: rid, findingIds: batch, ...force }),
        ),
      );
    },
    redactAllOpen: (id) => {
      const s = get();
      const open = s.recordingId === id ? s.findings.filter((f) => !f.resolved) : [];
      return get().redact(
        id,
        open.map((f) => f.id),
      );
    },
    accept: (id, findingId, note) => {
      const text = note?.trim();
      return decide(id, { kind: 'accept', findingIds: [findingId] }, [
        (rid, force) =>
          getApiClient().call('edits:apply', {
            id: rid,
            edit: { op: 'pii-accept', findingId, ...(text ? { note: text } : {}) },
            ...force,
          }),
      ]);
    },
    dismissActionError: () => set({ actionError: null }),
    clear: () => set((s) => ({ ...initialPrivacyState(), scanSeq: s.scanSeq + 1 })),
  };
};
