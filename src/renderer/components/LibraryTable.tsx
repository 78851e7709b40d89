// The library table, virtualised by hand: fixed row height, only the rows in view (plus
// overscan) are rendered, and only the pages of rows near the viewport are fetched.
import { useEffect, useRef, useState, type MouseEvent } from 'react';
import type { RecordingSummary } from '../../shared/domain';
import { useElementSize } from '../hooks/use-element-size';
import { osLabel, type SortKey } from '../lib/library-query';
import { routeHash } from '../lib/route';
import { formatDateTime, formatDurationMs } from '../lib/time';
import { visibleRange } from '../lib/virtual';
import { librarySelectors, useLibraryStore } from '../store/library';
import { CaptureChip, ReviewChip } from './StatusChip';

/** Height of one row, px (CSS uses the same value through a custom property). */
export const LIBRARY_ROW_PX = 44;

type Column = { key: SortKey | null; label: string; className: string };

const COLUMNS: Column[] = [
  { key: 'task', label: 'Task', className: 'col-task' },
  { key: null, label: 'Review', className: 'col-review' },
  // the service sorts `status` by capture status
  { key: 'status', label: 'Capture', className: 'col-capture' },
  { key: null, label: 'OS', className: 'col-os' },
  { key: 'created', label: 'Created', className: 'col-date' },
  { key: 'duration', label: 'Duration', className: 'col-duration num' },
  { key: 'steps', label: 'Steps', className: 'col-steps num' },
];

function Row({
  index,
  row,
  isSelected,
  onToggle,
}: {
  index: number;
  row: RecordingSummary | undefined;
  isSelected: boolean;
  onToggle: (index: number, e: MouseEvent<HTMLInputElement>) => void;
}) {
  if (!row) {
    return (
      <div className="lib-row lib-row-loading" role="row" aria-rowindex={index + 2}>
        <div className="col-check" role="cell" />
        <div className="col-task" role="cell">
          <span className="skeleton" />
        </div>
      </div>
    );
  }
  return (
    <div
      className={`lib-row${isSelected ? ' is-selected' : ''}`}
      role="row"
      aria-rowindex={index + 2}
      aria-selected={isSelected}
      data-testid="library-row"
      data-id={row.id}
    >
      <div className="col-check" role="cell">
        <input
          type="checkbox"
          checked={isSelected}
          aria-label={`Select ${row.task || row.id}`}
          onChange={() => undefined}
          onClick={(e) => onToggle(index, e)}
        />
      </div>
      <div className="col-task" role="cell">
        <a
          href={routeHash({ page: 'recording', id: row.id })}
          className="task-link"
          title={row.task}
        >
          {row.task || <em className="muted">Untitled recording</em>}
        </a>
        <span className="row-id">{row.id.slice(0, 8)}</span>
      </div>
      <div className="col-review" role="cell">
        <ReviewChip status={row.reviewStatus} />
      </div>
      <div className="col-capture" role="cell">
        <CaptureChip status={row.status} />
      </div>
      <div className="col-os" role="cell">
        {osLabel(row.os)}
      </div>
      <div className="col-date" role="cell">
        {formatDateTime(row.createdAtMs)}
      </div>
      <div className="col-duration num" role="cell">
        {formatDurationMs(row.durationMs)}
      </div>
      <div className="col-steps num" role="cell">
        {row.stepCount}
      </div>
    </div>
  );
}

// The virtualised, sortable, selectable recordings table.
export function LibraryTable() {
  const total = useLibraryStore(librarySelectors.rowCount);
  const rows = useLibraryStore((s) => s.rows);
  const selection = useLibraryStore((s) => s.selection);
  const sort = useLibraryStore((s) => s.sort);
  const generation = useLibraryStore((s) => s.generation);
  const isAllSelected = useLibraryStore(librarySelectors.isAllSelected);
  const selectedCount = useLibraryStore(librarySelectors.selectedCount);
  const isSelectingAll = useLibraryStore((s) => s.isSelectingAll);
  const { sortBy, ensureRows, toggleRow, selectAll } = useLibraryStore.getState();

  const viewportRef = useRef<HTMLDivElement>(null);
  const { height } = useElementSize(viewportRef);
  const [scrollTop, setScrollTop] = useState(0);
  const range = visibleRange({
    scrollTopPx: scrollTop,
    viewportPx: height,
    rowPx: LIBRARY_ROW_PX,
    count: total,
    overscan: 10,
  });

  // a new query starts at the top
  useEffect(() => {
    if (viewportRef.current) {
      viewportRef.current.scrollTop = 0;
    }
  }, [generation]);

  useEffect(() => {
    void ensureRows(range.start, range.end);
  }, [ensureRows, range.start, range.end, generation]);

  const onToggle = (index: number, e: MouseEvent<HTMLInputElement>) => {
    toggleRow(index, e.shiftKey);
  };

  const visible: number[] = [];
  for (let i = range.start; i < range.end; i++) {
    visible.push(i);
  }

  return (
    <div className="lib-table" role="table" aria-rowcount={total + 1} aria-label="Recordings">
      <div className="lib-row lib-head" role="row" aria-rowindex={1}>
        <div className="col-check" role="columnheader">
          <input
            type="checkbox"
            aria-label="Select all matching recordings"
            checked={isAllSelected}
            disabled={isSelectingAll || total === 0}
            ref={(el) => {
              if (el) {
                el.indeterminate = !isAllSelected && selectedCount > 0;
              }
            }}
            onChange={(e) => void selectAll(e.target.checked)}
          />
        </div>
        {COLUMNS.map((c) => {
          const isSorted = c.key !== null && sort.key === c.key;
          return (
            <div
              key={c.label}
              className={c.className}
              role="columnheader"
              aria-sort={isSorted ? (sort.order === 'asc' ? 'ascending' : 'descending') : 'none'}
            >
              {c.key ? (
                <button
                  type="button"
                  className={`sort-button${isSorted ? ' is-sorted' : ''}`}
                  onClick={() => {
                    if (c.key) {
                      void sortBy(c.key);
                    }
                  }}
                >
                  {c.label}
                  <span className="sort-arrow" aria-hidden="true">
                    {isSorted ? (sort.order === 'asc' ? '▲' : '▼') : '↕'}
                  </span>
                </button>
              ) : (
                c.label
              )}
            </div>
          );
        })}
      </div>
      <div
        className="lib-viewport"
        ref={viewportRef}
        onScroll={(e) => setScrollTop(e.currentTarget.scrollTop)}
        data-testid="library-viewport"
      >
        <div className="lib-spacer" style={{ height: range.totalPx }}>
          <div className="lib-window" style={{ transform: `translateY(${range.offsetPx}px)` }}>
            {visible.map((i) => {
              const row = rows[i];
              return (
                <Row
                  key={row ? row.id : `loading-${i}`}
                  index={i}
                  row={row}
                  isSelected={row ? selection[row.id] === true : false}
                  onToggle={onToggle}
                />
              );
            })}
          </div>
        </div>
      </div>
    </div>
  );
}
