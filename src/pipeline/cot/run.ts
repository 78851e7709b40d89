// One trajectory's CoT synthesis (docs/cot.md §5): per step the generator, then the reflector (the
// prior-judge variant where a reviewer judged the step), then the summarizer once at the end.
// Resumable: every finished step is handed to `saveStep` before the next is asked for, and a run
// reuses the stored steps whose inputs are unchanged, so nothing is paid for twice.
import { AppError } from '../../shared/errors';
import { drawCue, type RgbImage } from './cue';
import {
  doubleCheckMessages,
  generatorContent,
  generatorPrompt,
  historyOf,
  jpegDataUrl,
  priorJudgeContent,
  reflectorContent,
  summarizerText,
  type DoneStep,
} from './messages';
import {
  parseGeneratorAnswer,
  parsePriorJudgeAnswer,
  parseReflectionAnswer,
  parseSummaryAnswer,
  type GeneratorSections,
} from './parse';
import type { ChatMessage, ChatUsage } from '../../shared/chat';
import type { ChatClient } from './types';

/** A reviewer's mark on a step (the local library's step marks). */
export type ReviewerMark = 'correct' | 'incorrect' | 'redundant';

/** One step of the trajectory as the run sees it. */
export type CotStepInput = {
  /** 0-based position in the trajectory (the terminate step last). */
  index: number;
  /** The step's pyautogui code. */
  code: string;
  /** The reviewer's mark, when there is one. */
  mark: ReviewerMark | null;
  /** Fingerprint of everything the step's result depends on (its inputs and those before it). */
  inputSha256: string;
};

/** Where a stored step's correctness came from. */
export type VerdictSource = 'model' | 'reviewer' | 'final-step';

/** Calls and tokens spent. */
export type CotUsage = { calls: number; promptTokens: number; completionTokens: number };

/** A finished step, as stored. */
export type CotStepResult = DoneStep & {
  index: number;
  inputSha256: string;
  verdictSource: VerdictSource;
  usage: CotUsage;
};

/** The summarizer's result, as stored. */
export type CotSummaryResult = {
  inputSha256: string;
  /** The model's JSON object, every key (upstream merges it whole). */
  fields: Record<string, unknown>;
  usage: CotUsage;
};

/** What the run reads and writes. */
export type CotRunPorts = {
  client: ChatClient;
  /** The keyframe of trajectory image `index` (RGB). */
  image: (index: number) => Promise<RgbImage>;
  /** Stores a finished step (atomically) before the next step is asked for. */
  saveStep: (step: CotStepResult) => void;
  saveSummary: (summary: CotSummaryResult) => void;
};

/** Options of {@link runCot}. */
export type CotRunOptions = {
  /** Upstream --need_double_check: a second generator turn asking the model to check itself. */
  isDoubleCheck?: boolean;
  /** Reproduce upstream's output-changing defects (docs/cot.md §6): the double-check turn with
   * unfilled placeholders, the final step's verdict reset to correct. Default false. */
  isUpstreamQuirks?: boolean;
  /** Answers that cannot be read are asked again this many times (upstream: 1). */
  answerRetries?: number;
  signal?: AbortSignal;
  /** After each step (generated or reused; `done` = steps up to it, skipped ones included) and
   * after the summary (`done` = total). */
  onProgress?: (p: {
    done: number;
    total: number;
    index: number | 'summary';
    isReused: boolean;
  }) => void;
};

/** What a run did. */
export type CotRunOutcome = {
  generatedSteps: number;
  reusedSteps: number;
  /** Steps without code (upstream skips them; here they do not stop the summary). */
  skippedSteps: number;
  isSummaryGenerated: boolean;
  usage: CotUsage;
};

const zeroUsage = (): CotUsage => ({ calls: 0, promptTokens: 0, completionTokens: 0 });

/** Runs (or resumes) the synthesis of one trajectory. */
export async function runCot(
  input: {
    goal: string;
    steps: readonly CotStepInput[];
    /** Stored results by trajectory index. */
    stored: ReadonlyMap<number, CotStepResult>;
    storedSummary: { inputSha256: string } | null;
    summaryInputSha256: string;
  },
  ports: CotRunPorts,
  options: CotRunOptions = {},
): Promise<CotRunOutcome> {
  const { goal, steps } = input;
  const total = steps.length;
  const retries = options.answerRetries ?? 1;
  const outcome: CotRunOutcome = {
    generatedSteps: 0,
    reusedSteps: 0,
    skippedSteps: 0,
    isSummaryGenerated: false,
    usage: zeroUsage(),
  };
  const ask = async <T>(messages: ChatMessage[], usage: CotUsage, read: (text: string) => T) => {
    for (let attempt = 0; ; attempt += 1) {
      options.signal?.throwIfAborted();
      const answer = await ports.client.complete({ messages, temperature: 0 }, options.signal);
      add(usage, answer.usage);
      add(outcome.usage, answer.usage);
      try {
        return { text: answer.text, value: read(answer.text) };
      } catch (e) {
        if (!(e instanceof AppError) || e.code !== 'COT_ANSWER_INVALID' || attempt >= retries) {
          throw e;
        }
      }
    }
  };

  const done: DoneStep[] = [];
  let isChainIntact = true;
  for (const step of steps) {
    // upstream skips a step without code (and so never summarises); here it is only left out
    if (!step.code) {
      outcome.skippedSteps += 1;
      continue;
    }
    const kept = isChainIntact ? input.stored.get(step.index) : undefined;
    if (kept && kept.inputSha256 === step.inputSha256) {
      done.push(kept);
      outcome.reusedSteps += 1;
      options.onProgress?.({ done: step.index + 1, total, index: step.index, isReused: true });
      continue;
    }
    // every later step's history reads this one: from here on nothing stored is reused
    isChainIntact = false;
    const result = await generateStep(step, total, done, goal, ports, options, ask);
    ports.saveStep(result);
    done.push(result);
    outcome.generatedSteps += 1;
    options.onProgress?.({ done: step.index + 1, total, index: step.index, isReused: false });
  }

  if (input.storedSummary?.inputSha256 !== input.summaryInputSha256 || !isChainIntact) {
    const usage = zeroUsage();
    const text = summarizerText(goal, done);
    const { value } = await ask(
      [{ role: 'user', content: [{ type: 'text', text }] }],
      usage,
      parseSummaryAnswer,
    );
    ports.saveSummary({ inputSha256: input.summaryInputSha256, fields: value, usage });
    outcome.isSummaryGenerated = true;
  }
  options.onProgress?.({
    done: total,
    total,
    index: 'summary',
    isReused: !outcome.isSummaryGenerated,
  });
  return outcome;
}

type Ask = <T>(
  messages: ChatMessage[],
  usage: CotUsage,
  read: (text: string) => T,
) => Promise<{ text: string; value: T }>;

async function generateStep(
  step: CotStepInput,
  total: number,
  done: readonly DoneStep[],
  goal: string,
  ports: CotRunPorts,
  options: CotRunOptions,
  ask: Ask,
): Promise<CotStepResult> {
  const usage = zeroUsage();
  const isLast = step.index === total - 1;
  const { image, patch } = drawCue(await ports.image(step.index), step.code);
  const imageUrl = jpegDataUrl(image);
  const patchUrl = patch ? jpegDataUrl(patch) : null;
  const content = generatorContent(
    generatorPrompt(goal, done, step.code, patch !== null),
    imageUrl,
    patchUrl,
  );
  const quirks = options.isUpstreamQuirks ?? false;
  // upstream parses only the double-checked answer; the fix fills the check with the first one's
  const first = await ask([{ role: 'user', content }], usage, (text) =>
    options.isDoubleCheck && quirks ? null : parseGeneratorAnswer(text),
  );
  const sections: GeneratorSections = options.isDoubleCheck
    ? (
        await ask(
          doubleCheckMessages(content, first.text, first.value, quirks),
          usage,
          parseGeneratorAnswer,
        )
      ).value
    : first.value!;
  const judged = { thought: sections.thought, action: sections.action, code: step.code };
  const base = { ...sections, index: step.index, inputSha256: step.inputSha256, usage };
  const isJudged = step.mark === 'correct' || step.mark === 'incorrect';

  if (isLast) {
    // upstream asks no reflection of the last step (there is no next screenshot) and stores it
    // as correct; a reviewer's verdict is kept instead unless the quirks are asked for
    const isReviewed = isJudged && !options.isUpstreamQuirks;
    return {
      ...base,
      lastStepCorrect: isReviewed ? step.mark === 'correct' : true,
      lastStepRedundant: isReviewed ? step.mark !== 'correct' : false,
      reflection: '',
      verdictSource: isReviewed ? 'reviewer' : 'final-step',
    };
  }
  const nextImageUrl = jpegDataUrl(await ports.image(step.index + 1));
  if (isJudged) {
    // the reviewer is the judge: the model writes only the reflection
    const isCorrect = step.mark === 'correct';
    const { value: reflection } = await ask(
      [
        {
          role: 'user',
          content: priorJudgeContent({ goal, step: judged, isCorrect, imageUrl, nextImageUrl }),
        },
      ],
      usage,
      parsePriorJudgeAnswer,
    );
    return {
      ...base,
      lastStepCorrect: isCorrect,
      lastStepRedundant: !isCorrect,
      reflection,
      verdictSource: 'reviewer',
    };
  }
  const { value } = await ask(
    [
      {
        role: 'user',
        content: reflectorContent({
          goal,
          history: historyOf(done),
          step: judged,
          imageUrl,
          patchUrl,
          nextImageUrl,
        }),
      },
    ],
    usage,
    parseReflectionAnswer,
  );
  const isRedundantMark = step.mark === 'redundant';
  return {
    ...base,
    lastStepCorrect: value.lastStepCorrect,
    // a reviewer's "redundant" is kept over the model's judgement of redundancy
    lastStepRedundant: isRedundantMark ? true : value.lastStepRedundant,
    reflection: value.reflection,
    verdictSource: isRedundantMark ? 'reviewer' : 'model',
  };
}

function add(total: CotUsage, usage: ChatUsage): void {
  total.calls += 1;
  total.promptTokens += usage.promptTokens;
  total.completionTokens += usage.completionTokens;
}
