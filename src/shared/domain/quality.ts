// Checks before submit (issue 15 item 4, docs/quality.md): what `cua-annotator check` and the
// review UI's gate report about a recording before it is accepted or uploaded.
import * as v from 'valibot';

/** Every problem code a check reports (docs/quality.md §1 lists what each means and its fix). */
export const CHECK_CODES = [
  'TASK_MISSING',
  'NO_ACTIONS',
  'KEYFRAME_MISSING',
  'COORDINATE_OFF_SCREEN',
  'STEP_OUTSIDE_VIDEO',
  'UNLABELLED_STEP',
  'LONG_IDLE',
  'DUPLICATE_STEP',
  'NO_TERMINATE',
  'PII_UNRESOLVED',
  'PII_FINDING',
] as const;
/** One of {@link CHECK_CODES}. */
export const CheckCodeSchema = v.picklist(CHECK_CODES);
/** One of {@link CHECK_CODES}. */
export type CheckCode = v.InferOutput<typeof CheckCodeSchema>;

/** How bad a problem is: an error blocks submit and upload (`ok` false), a warning does not. */
export const CHECK_SEVERITIES = ['error', 'warning'] as const;
/** One of {@link CHECK_SEVERITIES}. */
export const CheckSeveritySchema = v.picklist(CHECK_SEVERITIES);
/** One of {@link CHECK_SEVERITIES}. */
export type CheckSeverity = v.InferOutput<typeof CheckSeveritySchema>;

/** One problem a check found. */
export type CheckProblem = {
  code: CheckCode;
  /** Index of the (edited) step it concerns; null when it concerns the whole recording. */
  stepIndex: number | null;
  message: string;
  /** What to do about it. */
  fix: string;
  severity: CheckSeverity;
};

/** The result of checking one recording: `ok` is false when any problem is an error. */
export type CheckResult = { ok: boolean; problems: CheckProblem[] };
