// The CoT store's state: one recording's stored reasoning (docs/cot.md §9).
import type { CotViewDto } from '../../../shared/contract';

/** The CoT store's state. */
export type CotState = {
  /** The recording shown, or null before the first load. */
  recordingId: string | null;
  view: CotViewDto | null;
  isLoading: boolean;
  /** The last failure's message (with its fix), or null. */
  error: string | null;
};

/** The state before anything is loaded. */
export function initialCotState(): CotState {
  return { recordingId: null, view: null, isLoading: false, error: null };
}
