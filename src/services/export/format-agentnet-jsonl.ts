// The agentnet-jsonl format: one line of `agentnet.jsonl` per recording (the OpenCUA training
// record), its keyframe images under `images/`, and the CoT pipeline's input under `cot-input/`
// (docs/pyautogui-code.md §5.1).
import { buildAgentNetRecordLine, buildCotInputLine } from '../../pipeline/export/datasets';
import { buildTrajectory } from '../../pipeline/export/trajectory';
import { getLabels } from '../../store';
import { teamTaskIdOf } from '../../shared/tasks-file';
import type { Library } from '../library/library';
import { textRedactorOf } from '../privacy/text-redaction';
import { requireImage, type ExportImages } from './export-keyframes';
import type { Loaded } from './export-load';
import type { ExportWriter } from './export-writer';
import { cotExportFields } from '../cot/cot-export';

/** The shared index file of the format (one line per recording). */
export const AGENTNET_JSONL_FILE = 'agentnet.jsonl';

/** Writes the images and CoT input of `l`; returns its `agentnet.jsonl` line. */
export async function writeAgentNetJsonl(
  lib: Library,
  l: Loaded,
  images: ExportImages,
  out: ExportWriter,
): Promise<string> {
  const traj = buildTrajectory(l.steps);
  const imageName = (k: number) => `${l.episodeId}_${k}.png`;
  // AgentNet's task_id: the hub task the recording was made for (docs/team-mode.md §16),
  // else the episode id as before
  const line = buildAgentNetRecordLine({
    taskId: String(teamTaskIdOf(l.rec.sourceMetadata) ?? l.episodeId),
    instruction: l.rec.task,
    labels: {
      ...textRedactorOf(lib, l.rec.seq).value(getLabels(lib.db, l.rec.seq).labels),
      reason: null,
      naturalLanguageTask: null,
      actualTask: null,
    },
    steps: traj,
    imageName,
    marks: (k) => {
      const step = l.steps[traj[k]?.imageIndex ?? -1];
      const mark = step ? l.marks.get(step.id) : undefined;
      return {
        lastStepCorrect: mark === 'correct' ? true : mark === 'incorrect' ? false : null,
        lastStepRedundant: mark === 'redundant' ? true : mark === 'correct' ? false : null,
      };
    },
    // the CoT synthesis' fields where the library holds them fresh (docs/cot.md §7)
    cot: cotExportFields(lib, l, traj, (k) => requireImage(images, l, traj[k]!.imageIndex)),
  });
  // every image first: a missing one stops the recording before anything else is written
  const pngs = traj.map((s) => requireImage(images, l, s.imageIndex));
  for (const [k, png] of pngs.entries()) {
    await out.file(`images/${imageName(k)}`, png);
  }
  await out.file(
    `cot-input/${l.episodeId}.jsonl`,
    buildCotInputLine(l.episodeId, l.rec.task, traj),
  );
  return line;
}
