// Library page: every recording with search, filters, sort and selection for bulk export.
import { useEffect, useRef, useState } from 'react';
import { RECORDING_STATUSES, REVIEW_STATUSES } from '../../shared/domain';
import type { RecordingStatus } from '../../shared/domain';
import { ExportDialog } from '../components/ExportDialog';
import { LibraryTable } from '../components/LibraryTable';
import { UploadButton } from '../components/UploadButton';
import { SubmitSelectedButton } from './team/SubmitSelectedButton';
import { useApiEvent } from '../hooks/use-api-event';
import { EMPTY_FILTERS, OS_OPTIONS } from '../lib/library-query';
import { REVIEW_STATUS_LABELS } from '../lib/review-workflow';
import { useExportStore } from '../store/export';
import { librarySelectors, useLibraryStore } from '../store/library';

/** Quiet time after typing in the search box before querying, ms. */
const SEARCH_DEBOUNCE_MS = 250;

// The library page.
export function LibraryPage() {
  const filters = useLibraryStore((s) => s.filters);
  const total = useLibraryStore((s) => s.total);
  const status = useLibraryStore((s) => s.status);
  const error = useLibraryStore((s) => s.error);
  const selectedCount = useLibraryStore(librarySelectors.selectedCount);
  const isFiltered = useLibraryStore(librarySelectors.isFiltered);
  const { load, setFilters, clearSelection, refresh } = useLibraryStore.getState();
  const [search, setSearch] = useState(filters.search);
  const searchTimer = useRef<ReturnType<typeof setTimeout> | null>(null);
  const [isExportOpen, setExportOpen] = useState(false);

  useEffect(() => {
    // the load main.tsx started before React mounted (in flight or answered) is this mount's
    void useLibraryStore.getState().loadForPage();
    return () => {
      if (searchTimer.current !== null) {
        clearTimeout(searchTimer.current);
      }
    };
  }, []);

  useApiEvent('recordings:changed', () => {
    void refresh();
  });

  const onSearch = (text: string) => {
    setSearch(text);
    if (searchTimer.current !== null) {
      clearTimeout(searchTimer.current);
    }
    searchTimer.current = setTimeout(() => {
      searchTimer.current = null;
      void setFilters({ search: text });
    }, SEARCH_DEBOUNCE_MS);
  };

  const openExport = () => {
    useExportStore.getState().prepare(librarySelectors.selectedIds(useLibraryStore.getState()));
    setExportOpen(true);
  };

  return (
    <div className="page library-page" data-testid="library-page">
      <header className="page-head">
        <div>
          <h1>Library</h1>
          <p className="muted" data-testid="library-count">
            {total === null
              ? 'Loading…'
              : `${total.toLocaleString()} recording${total === 1 ? '' : 's'}${isFiltered ? ' match' : ''}`}
          </p>
        </div>
        <div className="toolbar">
          {selectedCount > 0 && (
            <span className="selection-note">
              {selectedCount.toLocaleString()} selected
              <button type="button" className="btn btn-ghost btn-small" onClick={clearSelection}>
                Clear
              </button>
            </span>
          )}
          <button
            type="button"
            className="btn btn-primary"
            disabled={selectedCount === 0}
            onClick={openExport}
            data-testid="library-export"
          >
            Export selected…
          </button>
          <UploadButton
            label="Upload selected…"
            disabled={selectedCount === 0}
            title={selectedCount === 0 ? 'Select recordings to upload' : undefined}
            getIds={() => librarySelectors.selectedIds(useLibraryStore.getState())}
          />
          <SubmitSelectedButton
            disabled={selectedCount === 0}
            getIds={() => librarySelectors.selectedIds(useLibraryStore.getState())}
          />
        </div>
      </header>

      <div className="filters" role="search">
        <div className="search-box">
          <span className="search-icon" aria-hidden="true">
            ⌕
          </span>
          <input
            type="search"
            className="input"
            placeholder="Search task instructions…"
            aria-label="Search task instructions"
            value={search}
            onChange={(e) => onSearch(e.target.value)}
            data-testid="library-search"
          />
        </div>
        <div className="status-tabs" role="radiogroup" aria-label="Review status">
          {(['', ...REVIEW_STATUSES] as const).map((st) => (
            <button
              key={st || 'all'}
              type="button"
              role="radio"
              aria-checked={filters.reviewStatus === st}
              className={`status-tab${filters.reviewStatus === st ? ' is-active' : ''}${st ? ` tab-${st}` : ''}`}
              onClick={() => void setFilters({ reviewStatus: st })}
            >
              {st ? REVIEW_STATUS_LABELS[st] : 'All'}
            </button>
          ))}
        </div>
        <div className="filter-row">
          <label className="field-inline">
            <span>Capture</span>
            <select
              className="input"
              value={filters.status}
              onChange={(e) => void setFilters({ status: e.target.value as RecordingStatus | '' })}
            >
              <option value="">Any</option>
              {RECORDING_STATUSES.map((st) => (
                <option key={st} value={st}>
                  {st}
                </option>
              ))}
            </select>
          </label>
          <label className="field-inline">
            <span>OS</span>
            <select
              className="input"
              value={filters.os}
              onChange={(e) => void setFilters({ os: e.target.value })}
            >
              <option value="">Any</option>
              {OS_OPTIONS.map((o) => (
                <option key={o.value} value={o.value}>
                  {o.label}
                </option>
              ))}
            </select>
          </label>
          <label className="field-inline">
            <span>From</span>
            <input
              type="date"
              className="input"
              value={filters.fromDate}
              onChange={(e) => void setFilters({ fromDate: e.target.value })}
            />
          </label>
          <label className="field-inline">
            <span>To</span>
            <input
              type="date"
              className="input"
              value={filters.toDate}
              onChange={(e) => void setFilters({ toDate: e.target.value })}
            />
          </label>
          {isFiltered && (
            <button
              type="button"
              className="btn btn-ghost btn-small"
              onClick={() => {
                setSearch('');
                void setFilters({ ...EMPTY_FILTERS });
              }}
            >
              Clear filters
            </button>
          )}
        </div>
      </div>

      {status === 'error' && error && (
        <div className="notice notice-bad" role="alert">
          {error}{' '}
          <button type="button" className="btn btn-small" onClick={() => void load()}>
            Retry
          </button>
        </div>
      )}

      <LibraryTable />

      {total === 0 && status === 'ready' && (
        <div className="empty-state">
          {isFiltered
            ? 'No recording matches these filters.'
            : 'No recordings yet. Record one, or import AgentNet folders with `cua-annotator import`.'}
        </div>
      )}

      {isExportOpen && <ExportDialog onClose={() => setExportOpen(false)} />}
    </div>
  );
}
