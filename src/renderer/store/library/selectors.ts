// Derived values of the library store.
import type { RecordingSummary } from '../../../shared/domain';
import { hasActiveFilters } from '../../lib/library-query';
import { selectionSize } from '../../lib/selection';
import type { LibraryState } from './initialState';

/** Selectors of the library store. */
export const librarySelectors = {
  /** Number of rows the table shows. */
  rowCount: (s: LibraryState): number => s.total ?? 0,
  /** Loaded row at a position, undefined while its page loads. */
  rowAt: (s: LibraryState, index: number): RecordingSummary | undefined => s.rows[index],
  /** Number of selected recordings. */
  selectedCount: (s: LibraryState): number => selectionSize(s.selection),
  /** Selected ids in a stable order. */
  selectedIds: (s: LibraryState): string[] => Object.keys(s.selection).sort(),
  /** True when a row is selected. */
  isSelected: (s: LibraryState, id: string): boolean => s.selection[id] === true,
  /** True when every matching row is selected (and there is at least one). */
  isAllSelected: (s: LibraryState): boolean =>
    (s.total ?? 0) > 0 &&
    selectionSize(s.selection) >= (s.total ?? 0) &&
    Object.values(s.rows).every((r) => s.selection[r.id] === true),
  /** True when a filter narrows the list. */
  isFiltered: (s: LibraryState): boolean => hasActiveFilters(s.filters),
  /** True before the first answer of the current query. */
  isFirstLoad: (s: LibraryState): boolean => s.total === null && s.status === 'loading',
};
