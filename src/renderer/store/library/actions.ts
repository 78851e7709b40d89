// Library store actions: querying pages of recordings and managing the selection.
import type { StateCreator } from 'zustand';
import { errorMessage, getApiClient } from '../../api';
import {
  nextSort,
  toRecordingQuery,
  type LibraryFilters,
  type SortKey,
} from '../../lib/library-query';
import { setIds } from '../../lib/selection';
import { pagesForRange } from '../../lib/virtual';
import { LIBRARY_PAGE_SIZE, type LibraryState } from './initialState';
import { pageFailed, pageLoaded, pageRequested, rowToggled, startQuery } from './reducers';

/** Largest page the service allows (used to fetch every id for "select all"). */
const MAX_LIMIT = 5000;

/** Library store actions. */
export type LibraryActions = {
  /** Runs the current query from the first page. */
  load: () => Promise<void>;
  /** The load the renderer starts before React mounts (main.tsx), for the page's first mount. */
  prefetch: () => Promise<void>;
  /** The Library page's mount: loads, unless the prefetch is in flight or has just answered
   * (the first mount uses it; later mounts load again). */
  loadForPage: () => Promise<void>;
  /** Changes some filters and reloads. */
  setFilters: (patch: Partial<LibraryFilters>) => Promise<void>;
  /** Clicks a column header. */
  sortBy: (key: SortKey) => Promise<void>;
  /** Fetches the pages covering rows [start, end) that are not loaded yet. */
  ensureRows: (start: number, end: number) => Promise<void>;
  /** Re-fetches the pages already loaded (after a change elsewhere), keeping rows meanwhile. */
  refresh: () => Promise<void>;
  /** Toggles a row (shift: the range from the last clicked row). */
  toggleRow: (index: number, isRange: boolean) => void;
  /** Selects every matching recording (fetches their ids), or clears the selection. */
  selectAll: (on: boolean) => Promise<void>;
  /** Deselects everything. */
  clearSelection: () => void;
};

/** The library store type. */
export type LibraryStore = LibraryState & LibraryActions;

// The actions slice of the library store.
export const createLibraryActions: StateCreator<LibraryStore, [], [], LibraryActions> = (
  set,
  get,
) => {
  const fetchPage = async (page: number, generation: number) => {
    const s = get();
    try {
      const result = await getApiClient().call(
        'recordings:list',
        toRecordingQuery(s.filters, s.sort, page * LIBRARY_PAGE_SIZE, LIBRARY_PAGE_SIZE),
      );
      set((state) => pageLoaded(state, generation, page, LIBRARY_PAGE_SIZE, result));
    } catch (e) {
      set((state) => pageFailed(state, generation, page, errorMessage(e)));
    }
  };

  const requestPages = async (pages: number[]) => {
    const { generation } = get();
    const wanted = pages.filter((p) => {
      const st = get().pages[p];
      return st !== 'loading' && st !== 'loaded';
    });
    for (const p of wanted) {
      set((state) => pageRequested(state, p));
    }
    await Promise.all(wanted.map((p) => fetchPage(p, generation)));
  };

  // a prefetch not yet used by a page mount
  let prefetchUnused = false;
  const load = async () => {
    set((s) => startQuery(s, s.filters, s.sort));
    await requestPages([0]);
  };

  return {
    load,
    prefetch: async () => {
      prefetchUnused = true;
      await load();
    },
    loadForPage: async () => {
      const fresh = prefetchUnused;
      prefetchUnused = false;
      // the prefetch in flight is waited for; one that answered already is this mount's data
      if (fresh || get().status === 'loading') {
        return;
      }
      await load();
    },
    setFilters: async (patch) => {
      set((s) => startQuery(s, { ...s.filters, ...patch }, s.sort));
      await requestPages([0]);
    },
    sortBy: async (key) => {
      set((s) => startQuery(s, s.filters, nextSort(s.sort, key)));
      await requestPages([0]);
    },
    ensureRows: async (start, end) => {
      const total = get().total;
      if (total === null) {
        return;
      }
      await requestPages(pagesForRange(start, Math.min(end, total), LIBRARY_PAGE_SIZE));
    },
    refresh: async () => {
      const { generation, pages } = get();
      const loaded = Object.keys(pages).map(Number);
      await Promise.all((loaded.length > 0 ? loaded : [0]).map((p) => fetchPage(p, generation)));
    },
    toggleRow: (index, isRange) => set((s) => rowToggled(s, index, isRange)),
    selectAll: async (on) => {
      if (!on) {
        set({ selection: {}, anchorIndex: null });
        return;
      }
      const { filters, sort, generation } = get();
      set({ isSelectingAll: true });
      try {
        const ids: string[] = [];
        for (let offset = 0; ; offset += MAX_LIMIT) {
          const page = await getApiClient().call(
            'recordings:list',
            toRecordingQuery(filters, sort, offset, MAX_LIMIT),
          );
          ids.push(...page.items.map((r) => r.id));
          if (page.items.length < MAX_LIMIT || ids.length >= page.total) {
            break;
          }
        }
        if (get().generation === generation) {
          set((s) => ({ selection: setIds(s.selection, ids, true) }));
        }
      } catch (e) {
        set({ error: errorMessage(e) });
      } finally {
        set({ isSelectingAll: false });
      }
    },
    clearSelection: () => set({ selection: {}, anchorIndex: null }),
  };
};
