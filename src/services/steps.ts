// The steps a recording shows and exports: the reduced steps with the edit log applied.
import type { Step } from '../shared/domain';
import { getRecordingScreen, listEdits, listSteps } from '../store';
import { applyEdits, type AppliedEdits } from './edits/apply-edits';
import type { Library } from './library/library';

/** The full result of applying a recording's edit log (steps, marks, trim, skipped edits). */
export function effectiveStepState(lib: Library, recordingSeq: number): AppliedEdits {
  return applyEdits(listSteps(lib.db, recordingSeq), listEdits(lib.db, recordingSeq, ['active']), {
    screen: getRecordingScreen(lib.db, recordingSeq),
  });
}

/** A recording's current steps: reduced steps, then every active edit, then the trim. */
export function effectiveSteps(lib: Library, recordingSeq: number): Step[] {
  return effectiveStepState(lib, recordingSeq).steps;
}
