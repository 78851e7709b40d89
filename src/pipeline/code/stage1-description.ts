// Stage-1 description rewrite of `extract_raw.py` (docs/agentnet-raw-format.md §12.2 steps 2–3).
import { invalidCode } from '../../shared/python/code-error';
import { pyReprFloat } from '../../shared/python/py-format';

/** The fields of a complete row that the rewrite reads. */
export type Stage1Row = {
  /** Complete row `action` (`click`, `mouse_press`, `drag`, …). */
  action: string;
  /** Complete row `description` (already chosen over the vis one by the caller). */
  description: string;
  /** Complete row `coordinate` in screen pixels. */
  coordinate?: { x: number; y: number } | null;
};

/** Python `str()` of a JSON number: ints bare, other numbers like `repr(float)`. */
function pyStrNumber(value: number): string {
  return Number.isInteger(value) ? String(value) : pyReprFloat(value);
}

// Cuts at the first newline and appends ` (x, y)` to click / mouse_press rows without a `(`.
// Copying the `trace` of scroll rows is left to the caller.
export function stage1Description(row: Stage1Row): string {
  const newline = row.description.indexOf('\n');
  const cut = newline === -1 ? row.description : row.description.slice(0, newline);
  const action = row.action.toLowerCase();
  const isClickRow =
    action.includes('click') ||
    action.includes('mouse_press') ||
    row.description.toLowerCase().includes('click');
  if (!isClickRow || cut.includes('(')) {
    return cut;
  }
  if (row.coordinate == null) {
    throw invalidCode(
      `Click row ${JSON.stringify(row.description)} has no coordinate (stage 1 would fail)`,
      { description: row.description },
    );
  }
  return `${cut} (${pyStrNumber(row.coordinate.x)}, ${pyStrNumber(row.coordinate.y)})`;
}
