// Accessibility snapshot viewer for one step: a collapsible tree with search, virtualised (AX
// trees reach thousands of nodes), the element under the pointer highlighted.
import { useEffect, useMemo, useRef, useState } from 'react';
import { useElementSize } from '../hooks/use-element-size';
import {
  countNodes,
  elementOf,
  findElementIds,
  flattenAxTree,
  normalizeAxTree,
  searchAxTree,
} from '../lib/ax-tree';
import { formatClockSec } from '../lib/time';
import { visibleRange } from '../lib/virtual';
import { useReviewStore } from '../store/review';

/** Height of one tree row, px. */
const AX_ROW_PX = 24;

/** Props of {@link AxTreeViewer}. */
export type AxTreeViewerProps = {
  stepId: string;
  /** The element under the pointer as the step reports it (outermost first), if any. */
  element: { role: string; name: string }[] | null;
  /** Recording-clock ms of video frame 0 (to show the snapshot's video time). */
  videoStartMs: number;
};

// The accessibility tree of a step.
export function AxTreeViewer({ stepId, element, videoStartMs }: AxTreeViewerProps) {
  const entry = useReviewStore((s) => s.axTrees[stepId]);
  const loadAxTree = useReviewStore((s) => s.loadAxTree);
  const [query, setQuery] = useState('');
  const [expanded, setExpanded] = useState<Record<string, boolean>>({});
  const [defaultDepth, setDefaultDepth] = useState(2);
  const viewportRef = useRef<HTMLDivElement>(null);
  const { height } = useElementSize(viewportRef);
  const [scrollTop, setScrollTop] = useState(0);

  useEffect(() => {
    void loadAxTree(stepId);
  }, [loadAxTree, stepId]);

  const root = useMemo(
    () => (entry?.status === 'ready' ? normalizeAxTree(entry.tree) : null),
    [entry],
  );
  const target = useMemo(() => {
    // the step's own element chain first (normalised by the service), else the raw record
    const own = element?.[element.length - 1];
    if (own) {
      return own;
    }
    return entry?.status === 'ready' ? elementOf(entry.element) : null;
  }, [entry, element]);
  const targetIds = useMemo(() => findElementIds(root, target), [root, target]);
  const search = useMemo(
    () => (query.trim() === '' ? null : searchAxTree(root, query)),
    [root, query],
  );
  const rows = useMemo(
    () => flattenAxTree(root, { expanded, defaultDepth, search, reveal: targetIds }),
    [root, expanded, defaultDepth, search, targetIds],
  );
  const total = useMemo(() => countNodes(root), [root]);
  const range = visibleRange({
    scrollTopPx: scrollTop,
    viewportPx: height,
    rowPx: AX_ROW_PX,
    count: rows.length,
  });

  if (!entry || entry.status === 'loading') {
    return <div className="ax-viewer ax-empty">Loading the accessibility snapshot…</div>;
  }
  if (entry.status === 'error') {
    return (
      <div className="ax-viewer ax-empty" role="alert">
        {entry.error}
      </div>
    );
  }

  const toggle = (id: string, isExpanded: boolean) =>
    setExpanded((e) => ({ ...e, [id]: !isExpanded }));

  return (
    <div className="ax-viewer" data-testid="ax-viewer">
      <div className="ax-toolbar">
        <input
          type="search"
          className="input input-small"
          placeholder="Search name or role…"
          aria-label="Search the accessibility tree"
          value={query}
          onChange={(e) => setQuery(e.target.value)}
        />
        <button
          type="button"
          className="btn btn-small"
          onClick={() => {
            setExpanded({});
            setDefaultDepth(Number.POSITIVE_INFINITY);
          }}
        >
          Expand all
        </button>
        <button
          type="button"
          className="btn btn-small"
          onClick={() => {
            setExpanded({});
            setDefaultDepth(1);
          }}
        >
          Collapse
        </button>
      </div>
      <div className="ax-summary muted">
        {root ? (
          <>
            {total.toLocaleString()} nodes
            {entry.tMs !== null && (
              <> · captured at {formatClockSec((entry.tMs - videoStartMs) / 1000)}</>
            )}
            {search && (
              <>
                {' '}
                · {search.matchIds.size} match{search.matchIds.size === 1 ? '' : 'es'}
              </>
            )}
            {target && (
              <>
                {' '}
                · target{' '}
                <span className="ax-target-chip">
                  {target.role} “{target.name}”
                </span>
              </>
            )}
          </>
        ) : (
          'No accessibility snapshot for this step.'
        )}
      </div>
      <div
        className="ax-viewport"
        ref={viewportRef}
        role="tree"
        aria-label="Accessibility tree"
        onScroll={(e) => setScrollTop(e.currentTarget.scrollTop)}
      >
        <div style={{ height: range.totalPx, position: 'relative' }}>
          <div style={{ transform: `translateY(${range.offsetPx}px)` }}>
            {rows.slice(range.start, range.end).map((row) => {
              const n = row.node;
              const b = n.bounds;
              return (
                <div
                  key={n.id}
                  role="treeitem"
                  aria-level={row.depth + 1}
                  aria-expanded={row.hasChildren ? row.isExpanded : undefined}
                  className={`ax-row${row.isMatch ? ' is-match' : ''}${targetIds.has(n.id) ? ' is-target' : ''}`}
                  style={{ paddingLeft: 6 + row.depth * 14, height: AX_ROW_PX }}
                  title={[
                    `${n.role} “${n.name}”`,
                    n.description,
                    b ? `${b.x},${b.y} ${b.width}×${b.height}` : '',
                    n.states.join(' '),
                  ]
                    .filter(Boolean)
                    .join('\n')}
                >
                  {row.hasChildren ? (
                    <button
                      type="button"
                      className="ax-toggle"
                      aria-label={row.isExpanded ? 'Collapse' : 'Expand'}
                      disabled={search !== null}
                      onClick={() => toggle(n.id, row.isExpanded)}
                    >
                      {row.isExpanded ? '▾' : '▸'}
                    </button>
                  ) : (
                    <span className="ax-toggle" aria-hidden="true" />
                  )}
                  <span className="ax-role">{n.role || '?'}</span>
                  <span className="ax-name">{n.name}</span>
                  {n.hiddenChildren > 0 && <span className="muted"> +{n.hiddenChildren}</span>}
                </div>
              );
            })}
          </div>
        </div>
        {root && rows.length === 0 && <div className="ax-empty">No node matches “{query}”.</div>}
      </div>
    </div>
  );
}
