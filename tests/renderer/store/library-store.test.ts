import '../helpers/setup';
import { describe, expect, it } from 'vitest';
import type { RecordingQuery } from '../../../src/shared/contract';
import type { RecordingSummary } from '../../../src/shared/domain';
import {
  LIBRARY_PAGE_SIZE,
  librarySelectors,
  useLibraryStore,
} from '../../../src/renderer/store/library';
import { pageLoaded, startQuery } from '../../../src/renderer/store/library/reducers';
import { initialLibraryState } from '../../../src/renderer/store/library/initialState';
import { FakeFailure, installFakeApi } from '../helpers/fake-api';

function summary(i: number): RecordingSummary {
  return {
    id: `r${String(i).padStart(5, '0')}`,
    task: `Task ${i}`,
    status: 'complete',
    reviewStatus: i % 2 ? 'draft' : 'accepted',
    source: 'recorder',
    os: 'linux',
    createdAtMs: 1_700_000_000_000 + i,
    recordedAt: null,
    durationMs: 1000 * i,
    stepCount: i % 20,
    eventCount: 10,
  };
}

/** A fake library of `n` recordings answering pages and the review-status filter. */
function fakeLibrary(n: number) {
  const api = installFakeApi();
  const all = Array.from({ length: n }, (_, i) => summary(i));
  api.on('recordings:list', (payload) => {
    const q = payload as RecordingQuery;
    const rows = q.reviewStatus ? all.filter((r) => r.reviewStatus === q.reviewStatus) : all;
    const offset = q.offset ?? 0;
    return { total: rows.length, items: rows.slice(offset, offset + (q.limit ?? 200)) };
  });
  return api;
}

describe('library reducers', () => {
  it('drops answers of an older query', () => {
    const s0 = startQuery(initialLibraryState(), initialLibraryState().filters, {
      key: 'task',
      order: 'asc',
    });
    const s1 = startQuery(s0, { ...s0.filters, search: 'x' }, s0.sort);
    const late = pageLoaded(s1, s0.generation, 0, 500, { total: 1, items: [summary(1)] });
    expect(late).toBe(s1);
    const fresh = pageLoaded(s1, s1.generation, 1, 500, { total: 501, items: [summary(7)] });
    expect(fresh.rows[500]?.id).toBe('r00007');
    expect(fresh.total).toBe(501);
  });
});

describe('useLibraryStore', () => {
  it('loads the first page, then only the pages the viewport needs (10,000 recordings)', async () => {
    const api = fakeLibrary(10_000);
    await useLibraryStore.getState().load();
    let s = useLibraryStore.getState();
    expect(s.total).toBe(10_000);
    expect(Object.keys(s.rows)).toHaveLength(LIBRARY_PAGE_SIZE);
    expect(librarySelectors.rowAt(s, 0)?.id).toBe('r00000');
    // scrolling to rows 7,480–7,520 fetches pages 14 and 15 only
    await s.ensureRows(7480, 7520);
    s = useLibraryStore.getState();
    expect(api.calls.map((c) => (c.payload as RecordingQuery).offset)).toEqual([0, 7000, 7500]);
    expect(s.pages).toEqual({ 0: 'loaded', 14: 'loaded', 15: 'loaded' });
    // already loaded: no new request
    await s.ensureRows(7490, 7500);
    expect(api.calls).toHaveLength(3);
  });

  it('reloads from the top when a filter changes', async () => {
    const api = fakeLibrary(10);
    await useLibraryStore.getState().load();
    await useLibraryStore.getState().setFilters({ reviewStatus: 'accepted' });
    const s = useLibraryStore.getState();
    expect(s.total).toBe(5);
    expect(Object.values(s.rows).every((r) => r.reviewStatus === 'accepted')).toBe(true);
    expect((api.calls.at(-1)?.payload as RecordingQuery).reviewStatus).toBe('accepted');
    expect(librarySelectors.isFiltered(s)).toBe(true);
  });

  it('sorts by a column and flips on the second click', async () => {
    const api = fakeLibrary(3);
    await useLibraryStore.getState().sortBy('duration');
    await useLibraryStore.getState().sortBy('duration');
    expect(
      api.calls.map((c) => [
        (c.payload as RecordingQuery).sort,
        (c.payload as RecordingQuery).order,
      ]),
    ).toEqual([
      ['duration', 'desc'],
      ['duration', 'asc'],
    ]);
  });

  it('selects rows, shift-ranges and everything matching', async () => {
    fakeLibrary(12);
    await useLibraryStore.getState().load();
    const { toggleRow } = useLibraryStore.getState();
    toggleRow(2, false);
    toggleRow(5, true);
    expect(librarySelectors.selectedIds(useLibraryStore.getState())).toEqual([
      'r00002',
      'r00003',
      'r00004',
      'r00005',
    ]);
    toggleRow(3, false);
    expect(librarySelectors.selectedCount(useLibraryStore.getState())).toBe(3);
    await useLibraryStore.getState().selectAll(true);
    expect(librarySelectors.selectedCount(useLibraryStore.getState())).toBe(12);
    expect(librarySelectors.isAllSelected(useLibraryStore.getState())).toBe(true);
    await useLibraryStore.getState().selectAll(false);
    expect(librarySelectors.selectedCount(useLibraryStore.getState())).toBe(0);
  });

  it('reports a failed page with the service message', async () => {
    const api = installFakeApi();
    api.on('recordings:list', () => {
      throw new FakeFailure('DB_CORRUPT', 'The library database is damaged');
    });
    await useLibraryStore.getState().load();
    const s = useLibraryStore.getState();
    expect(s.status).toBe('error');
    expect(s.error).toBe('The library database is damaged');
    expect(s.pages[0]).toBe('error');
  });

  it('starts from the initial state in every test (setup resets stores)', () => {
    const s = useLibraryStore.getState();
    expect(s.total).toBeNull();
    expect(s.selection).toEqual({});
    expect(s.generation).toBe(0);
  });
});
