// The steps a recording shows and exports: the reduced steps with the edit log applied.
import type { Step } from '../shared/domain';
import { listSteps } from '../store';
import type { Library } from './library/library';

/** A recording's current steps (edits are applied here once the edit log exists). */
export function effectiveSteps(lib: Library, recordingSeq: number): Step[] {
  return listSteps(lib.db, recordingSeq);
}
