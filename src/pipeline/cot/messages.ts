// The requests of OpenCUA's CoT synthesis (docs/cot.md §3), message for message as upstream's
// gen_cot.py, module/reflector.py, module/reflector_with_prior_judge.py and module/evaluator.py
// build them: which template, filled with what (Python's str.format), images as JPEG data URLs
// with detail "high", in upstream's order.
import jpeg from 'jpeg-js';
import type { RgbImage } from './cue';
import {
  COT_GENERATOR_PROMPT_FOR_KEYBOARD_ACTION,
  COT_GENERATOR_PROMPT_FOR_MOUSE_ACTION,
  DOUBLE_CHECK_PROMPT,
  FINAL_TRAJECTORY_EVAL_PROMPT,
  PRIOR_JUDGE_REFLECTION_ONLY_FORMAT_PROMPT,
  PRIOR_JUDGE_TRANSIT_REFLECTION_FORMAT_PROMPT,
  PRIOR_JUDGE_TRANSIT_REFLECTION_FORMAT_PROMPT_LAST_INCORRECT,
  REFLECT_COT_GENERATOR_PROMPT_FOR_KEYBOARD_ACTION,
  REFLECT_COT_GENERATOR_PROMPT_FOR_MOUSE_ACTION,
  REFLECTION_FORMAT_PROMPT,
  STEP_FORMAT,
  TRAJECTORY_EVAL_FORMAT_PROMPT,
  TRANSIT_REFLECTION_FORMAT_PROMPT,
  TRANSIT_REFLECTION_FORMAT_PROMPT_TERMINATE_STEP,
  TRANSIT_REFLECTION_WITH_IMAGE_PATCH_FORMAT_PROMPT,
} from './prompts';
import { pyFormat } from './py-format';
import type { GeneratorSections } from './parse';
import type { ChatContentPart, ChatMessage } from '../../shared/chat';

/** JPEG quality of the images sent (Pillow's default, which upstream's image.save uses). */
export const JPEG_QUALITY = 75;

/** A JPEG data URL of an RGB image (alpha never reaches here: PNGs are decoded to RGB). */
export function jpegDataUrl(image: RgbImage): string {
  const rgba = new Uint8Array(image.width * image.height * 4);
  for (let p = 0, q = 0; p < image.rgb.length; p += 3, q += 4) {
    rgba[q] = image.rgb[p]!;
    rgba[q + 1] = image.rgb[p + 1]!;
    rgba[q + 2] = image.rgb[p + 2]!;
    rgba[q + 3] = 255;
  }
  const encoded = jpeg.encode(
    { width: image.width, height: image.height, data: rgba },
    JPEG_QUALITY,
  );
  return `data:image/jpeg;base64,${Buffer.from(encoded.data).toString('base64')}`;
}

const imagePart = (url: string): ChatContentPart => ({
  type: 'image_url',
  image_url: { url, detail: 'high' },
});

/** A finished step as the later prompts read it (upstream's step `value`). */
export type DoneStep = GeneratorSections & {
  lastStepCorrect: boolean;
  lastStepRedundant: boolean;
  reflection: string;
};

/** Upstream generate_all_history: "Step k: <action>\n" per finished step, or "None". */
export function historyOf(done: readonly Pick<DoneStep, 'action'>[]): string {
  return done.length ? done.map((s, i) => `Step ${i + 1}: ${s.action}\n`).join('') : 'None';
}

/** The generator's prompt text for a step after `done` (upstream generate_cot). */
export function generatorPrompt(
  goal: string,
  done: readonly DoneStep[],
  code: string,
  hasPatch: boolean,
): string {
  const last = done.at(-1);
  const isOnTrack = last ? last.lastStepCorrect && !last.lastStepRedundant : true;
  const template = isOnTrack
    ? hasPatch
      ? COT_GENERATOR_PROMPT_FOR_MOUSE_ACTION
      : COT_GENERATOR_PROMPT_FOR_KEYBOARD_ACTION
    : hasPatch
      ? REFLECT_COT_GENERATOR_PROMPT_FOR_MOUSE_ACTION
      : REFLECT_COT_GENERATOR_PROMPT_FOR_KEYBOARD_ACTION;
  return pyFormat(template, {
    goal,
    previous_actions: historyOf(done),
    former_thought: last ? last.thought : 'None',
    former_action_effect: last ? last.reflection : 'None',
    action_commands: code,
  });
}

/** The generator's user message content: prompt, cued screenshot, then the patch if any. */
export function generatorContent(
  prompt: string,
  imageUrl: string,
  patchUrl: string | null,
): ChatContentPart[] {
  return [
    { type: 'text', text: prompt },
    imagePart(imageUrl),
    ...(patchUrl ? [imagePart(patchUrl)] : []),
  ];
}

/**
 * The double-check turn (upstream --need_double_check). Upstream sends DOUBLE_CHECK_PROMPT with
 * its {observation}/{thought}/{action} placeholders unfilled, as a bare object rather than a list
 * of parts; here it is filled with the first answer's sections unless `isUpstreamQuirk`.
 */
export function doubleCheckMessages(
  content: readonly ChatContentPart[],
  answer: string,
  first: GeneratorSections | null,
  isUpstreamQuirk: boolean,
): ChatMessage[] {
  const text =
    isUpstreamQuirk || !first ? DOUBLE_CHECK_PROMPT : pyFormat(DOUBLE_CHECK_PROMPT, { ...first });
  return [
    { role: 'user', content },
    { role: 'assistant', content: answer },
    { role: 'user', content: [{ type: 'text', text }] },
  ];
}

/** What the reflector judges: the generated step and its code. */
export type ReflectedStep = { thought: string; action: string; code: string };

/** The reflector's content (upstream reflector.build_reflection_messages): screenshot, patch if
 * any, next screenshot if any, then the filled template and the JSON format. */
export function reflectorContent(input: {
  goal: string;
  history: string;
  step: ReflectedStep;
  imageUrl: string;
  patchUrl: string | null;
  nextImageUrl: string | null;
}): ChatContentPart[] {
  const { step } = input;
  let template = TRANSIT_REFLECTION_FORMAT_PROMPT;
  if (step.code.startsWith('computer.terminate')) {
    template = TRANSIT_REFLECTION_FORMAT_PROMPT_TERMINATE_STEP;
  }
  const parts: ChatContentPart[] = [imagePart(input.imageUrl)];
  if (input.patchUrl) {
    parts.push(imagePart(input.patchUrl));
    template = TRANSIT_REFLECTION_WITH_IMAGE_PATCH_FORMAT_PROMPT;
  }
  if (input.nextImageUrl) {
    parts.push(imagePart(input.nextImageUrl));
  }
  const text = pyFormat(template, {
    goal: input.goal,
    history_steps: input.history,
    thought: step.thought,
    action: step.action,
    code: step.code,
  });
  parts.push({ type: 'text', text: `${text}\n\n${REFLECTION_FORMAT_PROMPT}` });
  return parts;
}

/** The prior-judge reflector's content (upstream reflector_with_prior_judge): screenshot, next
 * screenshot if any (never the patch), the template of the reviewer's verdict, the JSON format. */
export function priorJudgeContent(input: {
  goal: string;
  step: ReflectedStep;
  isCorrect: boolean;
  imageUrl: string;
  nextImageUrl: string | null;
}): ChatContentPart[] {
  const template = input.isCorrect
    ? PRIOR_JUDGE_TRANSIT_REFLECTION_FORMAT_PROMPT
    : PRIOR_JUDGE_TRANSIT_REFLECTION_FORMAT_PROMPT_LAST_INCORRECT;
  const text = pyFormat(template, {
    goal: input.goal,
    thought: input.step.thought,
    action: input.step.action,
    code: input.step.code,
  });
  return [
    imagePart(input.imageUrl),
    ...(input.nextImageUrl ? [imagePart(input.nextImageUrl)] : []),
    { type: 'text', text: `${text}\n\n${PRIOR_JUDGE_REFLECTION_ONLY_FORMAT_PROMPT}` },
  ];
}

/** The summarizer's text (upstream generate_traj_eval): the task and every step, then the
 * evaluation instructions. */
export function summarizerText(goal: string, done: readonly DoneStep[]): string {
  const steps = done
    .map((s, i) =>
      pyFormat(STEP_FORMAT, {
        index: i + 1,
        thought: s.thought,
        action: s.action,
        last_step_correct: s.lastStepCorrect,
        last_step_redundant: s.lastStepRedundant,
        reflection: s.reflection,
      }),
    )
    .join('');
  return `${pyFormat(TRAJECTORY_EVAL_FORMAT_PROMPT, { goal, steps })}\n\n${FINAL_TRAJECTORY_EVAL_PROMPT}`;
}
