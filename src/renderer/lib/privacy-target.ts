// Where a PII finding takes the reviewer: its step (selected in the step list) and its moment in
// the video (the finding's time, else the step's start).
import type { RecordingDto } from '../../shared/contract';
import type { PiiFinding } from '../../shared/domain';
import { formatClockSec, recordingOriginMs } from './time';

/** What a click on a finding does: select `stepId` (when any) and seek to `videoSec` (when any). */
export type FindingTarget = { stepId: string | null; videoSec: number | null };

type TargetRecording = Pick<RecordingDto, 'steps' | 'video'>;

// The step a finding belongs to: the step whose index it names (found by index, so a list with
// unconfirmed edits still finds it), else null.
function stepOf(finding: PiiFinding, rec: TargetRecording): RecordingDto['steps'][number] | null {
  if (finding.stepIndex === null) {
    return null;
  }
  return (
    rec.steps.find((s) => s.index === finding.stepIndex) ?? rec.steps[finding.stepIndex] ?? null
  );
}

// The jump target of a finding (both null: the task text or label data, which have no step).
export function findingTarget(finding: PiiFinding, rec: TargetRecording): FindingTarget {
  const step = stepOf(finding, rec);
  const ms = finding.tMs ?? step?.startMs ?? null;
  const videoSec = rec.video && ms !== null ? Math.max(0, (ms - rec.video.startMs) / 1000) : null;
  return { stepId: step?.id ?? null, videoSec };
}

// The finding's time as the player shows it (`0:08.4` from the video's first frame), '' when none.
export function findingClock(
  finding: PiiFinding,
  rec: Pick<RecordingDto, 'steps' | 'video'>,
): string {
  return finding.tMs === null
    ? ''
    : formatClockSec(Math.max(0, (finding.tMs - recordingOriginMs(rec)) / 1000));
}
