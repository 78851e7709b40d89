// Row selection of the library table as a plain id → true record (serialisable store state).

/** Selected ids. */
export type Selection = Readonly<Record<string, true>>;

// Selection with `id` toggled.
export function toggleId(selection: Selection, id: string): Selection {
  if (selection[id]) {
    const { [id]: _removed, ...rest } = selection;
    return rest;
  }
  return { ...selection, [id]: true };
}

// Selection with every id of `ids` added (when `on`) or removed.
export function setIds(selection: Selection, ids: readonly string[], on: boolean): Selection {
  const next: Record<string, true> = { ...selection };
  for (const id of ids) {
    if (on) {
      next[id] = true;
    } else {
      delete next[id];
    }
  }
  return next;
}

// Ids of rows [from, to] inclusive (either order) among loaded rows; gaps are skipped.
export function idsInRange(
  rows: Readonly<Record<number, { id: string }>>,
  from: number,
  to: number,
): string[] {
  const lo = Math.min(from, to);
  const hi = Math.max(from, to);
  const ids: string[] = [];
  for (let i = lo; i <= hi; i++) {
    const row = rows[i];
    if (row) {
      ids.push(row.id);
    }
  }
  return ids;
}

// Number of selected ids.
export function selectionSize(selection: Selection): number {
  return Object.keys(selection).length;
}
