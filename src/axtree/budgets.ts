// Budgets for accessibility tree captures: a capture never walks more than `maxNodes` nodes or
// runs longer than `maxMs`, so a huge or hung application cannot stall the recorder
// (docs/platform-linux.md §4 timings: ~330–400 ms for 270–490 nodes walked level by level).

/** Limits of one tree capture. */
export type AxBudget = {
  /** Most nodes kept in the tree (≥ 1); default 2 000. */
  maxNodes: number;
  /** Wall-clock limit of the capture, ms; default 1 500. */
  maxMs: number;
  /**
   * Most children kept per node (lists and tables that manage thousands of descendants);
   * default 500.
   */
  maxChildrenPerNode?: number;
};

/** Default snapshot budget. */
export const DEFAULT_SNAPSHOT_BUDGET: Required<AxBudget> = {
  maxNodes: 2000,
  maxMs: 1500,
  maxChildrenPerNode: 500,
};

/** Fills defaults and clamps a partial budget to sane values. */
export function normalizeBudget(budget: Partial<AxBudget> = {}): Required<AxBudget> {
  const pick = (value: number | undefined, fallback: number, min: number): number =>
    value === undefined || !Number.isFinite(value) ? fallback : Math.max(min, Math.floor(value));
  return {
    maxNodes: pick(budget.maxNodes, DEFAULT_SNAPSHOT_BUDGET.maxNodes, 1),
    maxMs: pick(budget.maxMs, DEFAULT_SNAPSHOT_BUDGET.maxMs, 0),
    maxChildrenPerNode: pick(
      budget.maxChildrenPerNode,
      DEFAULT_SNAPSHOT_BUDGET.maxChildrenPerNode,
      0,
    ),
  };
}

/** Why a capture stopped early. */
export type TruncationReason = 'nodes' | 'time' | 'children' | 'errors';

/** Tracks one capture against its budget and collects truncation reasons. */
export class BudgetTracker {
  readonly budget: Required<AxBudget>;
  private readonly startedMs: number;
  private nodesUsed = 0;
  private readonly reasons = new Map<TruncationReason, number>();

  constructor(
    budget: Partial<AxBudget>,
    private readonly now: () => number,
  ) {
    this.budget = normalizeBudget(budget);
    this.startedMs = now();
  }

  /** ms left before the time budget runs out (never negative). */
  remainingMs(): number {
    return Math.max(0, this.startedMs + this.budget.maxMs - this.now());
  }

  /** ms since the capture started. */
  elapsedMs(): number {
    return this.now() - this.startedMs;
  }

  /** True once the time budget is spent. */
  isOutOfTime(): boolean {
    return this.remainingMs() <= 0;
  }

  /** Nodes kept so far. */
  nodeCount(): number {
    return this.nodesUsed;
  }

  /** Reserves up to `wanted` nodes; returns how many may be kept (records a `nodes` cut). */
  takeNodes(wanted: number): number {
    const granted = Math.max(0, Math.min(wanted, this.budget.maxNodes - this.nodesUsed));
    this.nodesUsed += granted;
    if (granted < wanted) {
      this.record('nodes', wanted - granted);
    }
    return granted;
  }

  /** Gives back nodes that were reserved but not kept (e.g. a call failed). */
  releaseNodes(count: number): void {
    this.nodesUsed = Math.max(0, this.nodesUsed - count);
  }

  /** How many of a node's `childCount` children may be kept (records a `children` cut). */
  childrenAllowed(childCount: number): number {
    const allowed = Math.min(childCount, this.budget.maxChildrenPerNode);
    if (allowed < childCount) {
      this.record('children', childCount - allowed);
    }
    return allowed;
  }

  /** Records `count` nodes lost for `reason`. */
  record(reason: TruncationReason, count = 1): void {
    this.reasons.set(reason, (this.reasons.get(reason) ?? 0) + count);
  }

  /** True when anything was cut. */
  isTruncated(): boolean {
    return this.reasons.size > 0;
  }

  /** Human summary of the cuts, e.g. `node budget 50 reached (12 nodes left out)`; or undefined. */
  note(): string | undefined {
    if (this.reasons.size === 0) {
      return undefined;
    }
    const parts: string[] = [];
    for (const [reason, count] of this.reasons) {
      parts.push(describeCut(reason, count, this.budget));
    }
    return parts.join('; ');
  }
}

function describeCut(reason: TruncationReason, count: number, budget: Required<AxBudget>): string {
  switch (reason) {
    case 'nodes':
      return `node budget ${budget.maxNodes} reached (${count} nodes left out)`;
    case 'time':
      return `time budget ${budget.maxMs} ms reached (${count} nodes not read or not walked)`;
    case 'children':
      return `child budget ${budget.maxChildrenPerNode} per node reached (${count} children left out)`;
    case 'errors':
      return `${count} nodes could not be read`;
  }
}
