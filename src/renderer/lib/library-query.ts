// Library filters as the page holds them ↔ the RecordingQuery the service takes.
import type { RecordingQuery } from '../../shared/contract';
import type { RecordingStatus, ReviewStatus } from '../../shared/domain';
import { localDateEndMs, localDateStartMs } from './time';

/** Sortable columns. */
export type SortKey = NonNullable<RecordingQuery['sort']>;
/** Sort direction. */
export type SortOrder = NonNullable<RecordingQuery['order']>;

/** Filters of the library page (form values, '' = any). */
export type LibraryFilters = {
  search: string;
  reviewStatus: ReviewStatus | '';
  status: RecordingStatus | '';
  os: string;
  /** `YYYY-MM-DD` (local), inclusive. */
  fromDate: string;
  /** `YYYY-MM-DD` (local), inclusive. */
  toDate: string;
};

/** Sort of the library page. */
export type LibrarySort = { key: SortKey; order: SortOrder };

/** No filter at all. */
export const EMPTY_FILTERS: LibraryFilters = {
  search: '',
  reviewStatus: '',
  status: '',
  os: '',
  fromDate: '',
  toDate: '',
};

/** Newest first. */
export const DEFAULT_SORT: LibrarySort = { key: 'created', order: 'desc' };

/** Operating systems offered by the OS filter (`PlatformInfo.os` values). */
export const OS_OPTIONS: readonly { value: string; label: string }[] = [
  { value: 'linux', label: 'Linux' },
  { value: 'win32', label: 'Windows' },
  { value: 'darwin', label: 'macOS' },
];

// Display name of an OS id.
export function osLabel(os: string): string {
  return OS_OPTIONS.find((o) => o.value === os)?.label ?? os;
}

// The service query of filters + sort + a page window.
export function toRecordingQuery(
  filters: LibraryFilters,
  sort: LibrarySort,
  offset: number,
  limit: number,
): RecordingQuery {
  const q: RecordingQuery = { sort: sort.key, order: sort.order, offset, limit };
  const search = filters.search.trim();
  if (search !== '') {
    q.search = search;
  }
  if (filters.reviewStatus !== '') {
    q.reviewStatus = filters.reviewStatus;
  }
  if (filters.status !== '') {
    q.status = filters.status;
  }
  if (filters.os !== '') {
    q.os = filters.os;
  }
  const fromMs = localDateStartMs(filters.fromDate);
  if (fromMs !== null) {
    q.fromMs = fromMs;
  }
  const toMs = localDateEndMs(filters.toDate);
  if (toMs !== null) {
    q.toMs = toMs;
  }
  return q;
}

// Sort after clicking a column header: same column flips the order, a new one starts descending
// for numbers and dates, ascending for text.
export function nextSort(current: LibrarySort, key: SortKey): LibrarySort {
  if (current.key === key) {
    return { key, order: current.order === 'asc' ? 'desc' : 'asc' };
  }
  return { key, order: key === 'task' || key === 'status' ? 'asc' : 'desc' };
}

// True when any filter is set.
export function hasActiveFilters(filters: LibraryFilters): boolean {
  return Object.values(filters).some((v) => v !== '');
}
