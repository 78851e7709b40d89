// State of the library page: filters, sort, the sparse window of loaded rows, and selection.
import type { RecordingSummary } from '../../../shared/domain';
import {
  DEFAULT_SORT,
  EMPTY_FILTERS,
  type LibraryFilters,
  type LibrarySort,
} from '../../lib/library-query';
import type { Selection } from '../../lib/selection';

/** Rows fetched per request (the service allows up to 5000). */
export const LIBRARY_PAGE_SIZE = 500;

/** Loading state of one page of rows. */
export type PageState = 'loading' | 'loaded' | 'error';

/** Library page state (plain serialisable data). */
export type LibraryState = {
  filters: LibraryFilters;
  sort: LibrarySort;
  /** Rows matching the filters, null before the first answer. */
  total: number | null;
  /** Loaded rows by position (sparse: only the pages near the viewport are fetched). */
  rows: Record<number, RecordingSummary>;
  /** Page index → state. */
  pages: Record<number, PageState>;
  /** Bumped on every filter/sort change so late answers of an old query are dropped. */
  generation: number;
  selection: Selection;
  /** Row last clicked, for shift-click ranges. */
  anchorIndex: number | null;
  status: 'idle' | 'loading' | 'ready' | 'error';
  error: string | null;
  /** True while every matching id is being fetched for "select all". */
  isSelectingAll: boolean;
};

// A fresh library state.
export function initialLibraryState(): LibraryState {
  return {
    filters: { ...EMPTY_FILTERS },
    sort: { ...DEFAULT_SORT },
    total: null,
    rows: {},
    pages: {},
    generation: 0,
    selection: {},
    anchorIndex: null,
    status: 'idle',
    error: null,
    isSelectingAll: false,
  };
}
