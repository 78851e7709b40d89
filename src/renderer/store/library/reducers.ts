// Pure state transitions of the library store (tested alone).
import type { RecordingSummary } from '../../../shared/domain';
import type { LibraryFilters, LibrarySort } from '../../lib/library-query';
import { idsInRange, setIds, toggleId } from '../../lib/selection';
import type { LibraryState } from './initialState';

// New filters/sort: a new query generation with no rows (selection is kept).
export function startQuery(
  state: LibraryState,
  filters: LibraryFilters,
  sort: LibrarySort,
): LibraryState {
  return {
    ...state,
    filters,
    sort,
    generation: state.generation + 1,
    rows: {},
    pages: {},
    total: null,
    status: 'loading',
    error: null,
    anchorIndex: null,
  };
}

// Marks a page as loading (no-op when it is already loading or loaded).
export function pageRequested(state: LibraryState, page: number): LibraryState {
  const current = state.pages[page];
  if (current === 'loading' || current === 'loaded') {
    return state;
  }
  return { ...state, pages: { ...state.pages, [page]: 'loading' } };
}

// Stores one page of answers; answers of an older generation are ignored.
export function pageLoaded(
  state: LibraryState,
  generation: number,
  page: number,
  pageSize: number,
  result: { total: number; items: RecordingSummary[] },
): LibraryState {
  if (generation !== state.generation) {
    return state;
  }
  const rows: Record<number, RecordingSummary> = { ...state.rows };
  const base = page * pageSize;
  result.items.forEach((item, i) => {
    rows[base + i] = item;
  });
  // the total may shrink (rows deleted elsewhere): drop rows past the end
  for (const key of Object.keys(rows)) {
    if (Number(key) >= result.total) {
      delete rows[Number(key)];
    }
  }
  return {
    ...state,
    rows,
    total: result.total,
    pages: { ...state.pages, [page]: 'loaded' },
    status: 'ready',
    error: null,
  };
}

// Records a failed page request of the current generation.
export function pageFailed(
  state: LibraryState,
  generation: number,
  page: number,
  message: string,
): LibraryState {
  if (generation !== state.generation) {
    return state;
  }
  return { ...state, pages: { ...state.pages, [page]: 'error' }, status: 'error', error: message };
}

// Click on a row's checkbox: toggle it, or with shift select the range from the anchor.
export function rowToggled(state: LibraryState, index: number, isRange: boolean): LibraryState {
  const row = state.rows[index];
  if (!row) {
    return state;
  }
  if (isRange && state.anchorIndex !== null) {
    const on = !state.selection[row.id];
    const ids = idsInRange(state.rows, state.anchorIndex, index);
    return { ...state, selection: setIds(state.selection, ids, on), anchorIndex: index };
  }
  return { ...state, selection: toggleId(state.selection, row.id), anchorIndex: index };
}
