// The CoT run with a scripted ChatClient: the flow (generator → reflector per step, summarizer once),
// the prompt choice after a wrong step, reviewers' verdicts as the prior judge, resuming without
// asking twice, answers that cannot be read, steps without code.
import jpeg from 'jpeg-js';
import { describe, expect, it } from 'vitest';
import { drawCue } from '../../../src/pipeline/cot/cue';
import type { RgbImage } from '../../../src/pipeline/cot/cue';
import {
  runCot,
  type CotStepInput,
  type CotRunOptions,
  type CotStepResult,
  type CotSummaryResult,
} from '../../../src/pipeline/cot/run';
import type { ChatRequest } from '../../../src/shared/chat';
import type { ChatClient } from '../../../src/pipeline/cot/types';

const image = (index: number): Promise<RgbImage> =>
  Promise.resolve({ width: 64, height: 48, rgb: new Uint8Array(64 * 48 * 3).fill(index * 20) });

const CODES = [
  'pyautogui.click(x=0.5, y=0.5)',
  "pyautogui.write(message='hi')",
  'pyautogui.click(x=0.1, y=0.9)',
  "pyautogui.moveTo(x=0.2, y=0.2)\npyautogui.dragTo(x=0.8, y=0.2, button='left')",
  "computer.terminate(status='success')",
];

function stepsOf(marks: Record<number, CotStepInput['mark']> = {}, codes = CODES): CotStepInput[] {
  return codes.map((code, index) => ({
    index,
    code,
    mark: marks[index] ?? null,
    inputSha256: `h${index}:${code}:${marks[index] ?? ''}`,
  }));
}

type Kind = 'generator' | 'reflector' | 'prior-judge' | 'summarizer';

function kindOf(req: ChatRequest): Kind {
  const parts = req.messages[0]!.content;
  const text =
    typeof parts === 'string' ? parts : parts.map((p) => ('text' in p ? p.text : '')).join('');
  if (text.startsWith('Your task is to generate three components')) {
    return 'generator';
  }
  if (text.startsWith('You will be given a task, agent last action')) {
    return 'prior-judge';
  }
  if (text.startsWith('You are an judge')) {
    return 'reflector';
  }
  return 'summarizer';
}

function textOf(req: ChatRequest): string {
  const parts = req.messages[0]!.content;
  return typeof parts === 'string' ? parts : parts.map((p) => ('text' in p ? p.text : '')).join('');
}

/** A scripted model: answers by request kind; `override(n, req)` may replace the n-th answer. */
function scripted(
  options: {
    wrongSteps?: number[];
    override?: (n: number, req: ChatRequest) => string | Error | undefined;
  } = {},
) {
  const requests: ChatRequest[] = [];
  let generated = 0;
  const client: ChatClient = {
    complete: (req) => {
      requests.push(req);
      const n = requests.length;
      const custom = options.override?.(n, req);
      if (custom instanceof Error) {
        return Promise.reject(custom);
      }
      const kind = kindOf(req);
      let text: string;
      if (custom !== undefined) {
        text = custom;
      } else if (kind === 'generator') {
        generated += 1;
        text = `## Observation:\nobs ${generated}\n\n## Thought:\nthought ${generated}\n\n## Action:\naction ${generated}`;
      } else if (kind === 'reflector') {
        const isWrong = options.wrongSteps?.includes(generated - 1) ?? false;
        text =
          '```json\n' +
          JSON.stringify({
            last_step_correct: !isWrong,
            last_step_redundant: false,
            reflection: `reflection ${generated}`,
          }) +
          '\n```';
      } else if (kind === 'prior-judge') {
        // a model that also judges: its verdict must be ignored
        text = JSON.stringify({ last_step_correct: true, reflection: `judged ${generated}` });
      } else {
        text = JSON.stringify({
          task_completed: true,
          alignment_score: 8,
          efficiency_score: 7,
          task_difficulty: 3,
          reason: 'r',
          natural_language_task: 'n',
          actual_task: 'a',
        });
      }
      return Promise.resolve({ text, usage: { promptTokens: 100, completionTokens: 10 } });
    },
  };
  return { client, requests };
}

function memoryStore() {
  const steps = new Map<number, CotStepResult>();
  let summary: CotSummaryResult | null = null;
  const saves: number[] = [];
  return {
    steps,
    saves,
    get summary() {
      return summary;
    },
    ports: {
      image,
      saveStep: (s: CotStepResult) => {
        steps.set(s.index, s);
        saves.push(s.index);
      },
      saveSummary: (s: CotSummaryResult) => {
        summary = s;
      },
    },
  };
}

const run = (
  client: ChatClient,
  store: ReturnType<typeof memoryStore>,
  steps: CotStepInput[],
  signal?: AbortSignal,
  options: Omit<CotRunOptions, 'signal'> = {},
) =>
  runCot(
    {
      goal: 'Open the settings',
      steps,
      stored: store.steps,
      storedSummary: store.summary,
      summaryInputSha256: steps.map((s) => s.inputSha256).join('|'),
    },
    { client, ...store.ports },
    { signal, ...options },
  );

describe('runCot', () => {
  it('asks generator then reflector per step, none for the last, the summarizer once', async () => {
    const { client, requests } = scripted({ wrongSteps: [1] });
    const store = memoryStore();
    const outcome = await run(client, store, stepsOf());
    expect(requests.map(kindOf)).toEqual([
      ...Array<Kind[]>(4).fill(['generator', 'reflector']).flat(),
      'generator',
      'summarizer',
    ]);
    expect(outcome).toMatchObject({ generatedSteps: 5, reusedSteps: 0, isSummaryGenerated: true });
    expect(outcome.usage).toEqual({ calls: 10, promptTokens: 1000, completionTokens: 100 });
    // step 1 judged wrong by the model: step 2 gets the reflect prompt (mouse: it has a patch)
    expect(textOf(requests[4]!)).toContain(
      '**Reflection of the former incorrect or redundant action**',
    );
    expect(textOf(requests[2]!)).toContain('**Effect of former action**:\nreflection 1');
    expect(textOf(requests[4]!)).toContain(
      '**Previous Actions**:\nStep 1: action 1\nStep 2: action 2\n',
    );
    // images: mouse step = screenshot + patch; keyboard step = screenshot only; reflector + next
    const images = (r: ChatRequest) =>
      (r.messages[0]!.content as readonly { type: string }[]).filter((p) => p.type === 'image_url')
        .length;
    expect(requests.map(images)).toEqual([2, 3, 1, 2, 2, 3, 2, 3, 1, 0]);
    expect(store.steps.get(1)).toMatchObject({ lastStepCorrect: false, verdictSource: 'model' });
    expect(store.steps.get(4)).toMatchObject({
      lastStepCorrect: true,
      lastStepRedundant: false,
      reflection: '',
      verdictSource: 'final-step',
    });
    expect(store.summary?.fields).toMatchObject({ alignment_score: 8 });
    expect(requests.every((r) => r.temperature === 0)).toBe(true);
    // the first image is the cued screenshot as a JPEG (lossy: close, not equal)
    const part = (
      requests[0]!.messages[0]!.content as readonly { image_url?: { url: string } }[]
    )[1]!;
    const decoded = jpeg.decode(Buffer.from(part.image_url!.url.split(',')[1]!, 'base64'), {
      useTArray: true,
      formatAsRGBA: false,
    });
    const cued = drawCue(await image(0), CODES[0]!).image;
    expect([decoded.width, decoded.height]).toEqual([cued.width, cued.height]);
    let diff = 0;
    cued.rgb.forEach((v, i) => (diff += Math.abs(v - decoded.data[i]!)));
    expect(diff / cued.rgb.length).toBeLessThan(4);
  });

  it('a reviewer’s "incorrect" on step 3 → the prior-judge prompt, the reviewer’s verdict stored', async () => {
    const { client, requests } = scripted();
    const store = memoryStore();
    await run(client, store, stepsOf({ 3: 'incorrect' }));
    const kinds = requests.map(kindOf);
    expect(kinds[7]).toBe('prior-judge');
    expect(kinds.filter((k) => k === 'prior-judge')).toHaveLength(1);
    expect(textOf(requests[7]!)).toContain('The last step is an INCORRECT step.');
    expect(textOf(requests[7]!)).toContain(
      "## Code:\npyautogui.moveTo(x=0.2, y=0.2)\npyautogui.dragTo(x=0.8, y=0.2, button='left')",
    );
    // the model said correct; the reviewer's "incorrect" is what is stored
    expect(store.steps.get(3)).toMatchObject({
      lastStepCorrect: false,
      lastStepRedundant: true,
      reflection: 'judged 4',
      verdictSource: 'reviewer',
    });
    // and the step after it is generated with the reflect prompt
    expect(textOf(requests[8]!)).toContain(
      '**Reflection of the former incorrect or redundant action**:\njudged 4',
    );
    // the summarizer reads the reviewer's verdict
    expect(textOf(requests.at(-1)!)).toContain(
      '## Step 4\n### Thought:\nthought 4\n### Action:\naction 4\n### Is the current step correct?\nFalse\n',
    );
  });

  it('a reviewer’s "correct" → the prior-judge prompt for a correct step', async () => {
    const { client, requests } = scripted({ wrongSteps: [0] });
    const store = memoryStore();
    await run(client, store, stepsOf({ 0: 'correct' }));
    expect(kindOf(requests[1]!)).toBe('prior-judge');
    expect(textOf(requests[1]!)).toContain('explain the effectiveness of the last step');
    expect(store.steps.get(0)).toMatchObject({ lastStepCorrect: true, lastStepRedundant: false });
  });

  it('interrupted after step 2 and run again: steps 0–2 are not asked again, one summary', async () => {
    const controller = new AbortController();
    const first = scripted({
      override: (n) => {
        if (n === 7) {
          controller.abort();
          return new Error('aborted');
        }
        return undefined;
      },
    });
    const store = memoryStore();
    await expect(run(first.client, store, stepsOf(), controller.signal)).rejects.toThrow();
    expect([...store.steps.keys()]).toEqual([0, 1, 2]);
    expect(store.summary).toBeNull();

    const second = scripted();
    const outcome = await run(second.client, store, stepsOf());
    expect(outcome).toMatchObject({ generatedSteps: 2, reusedSteps: 3, isSummaryGenerated: true });
    expect(second.requests.map(kindOf)).toEqual([
      'generator',
      'reflector',
      'generator',
      'summarizer',
    ]);
    expect(textOf(second.requests[0]!)).toContain('**Predicted code**:\npyautogui.moveTo(x=0.2');
    expect(textOf(second.requests[0]!)).toContain('Step 3: action 3\n');

    // nothing left: a third run asks nothing
    const third = scripted();
    expect(await run(third.client, store, stepsOf())).toMatchObject({
      generatedSteps: 0,
      reusedSteps: 5,
      isSummaryGenerated: false,
    });
    expect(third.requests).toHaveLength(0);
  });

  it('stopped while the summary is asked: the next run asks only for the summary (upstream never does)', async () => {
    const controller = new AbortController();
    const first = scripted({
      override: (_n, req) => {
        if (kindOf(req) === 'summarizer') {
          controller.abort();
          return new Error('aborted');
        }
        return undefined;
      },
    });
    const store = memoryStore();
    await expect(run(first.client, store, stepsOf(), controller.signal)).rejects.toThrow();
    expect([...store.steps.keys()]).toEqual([0, 1, 2, 3, 4]);
    expect(store.summary).toBeNull();

    const second = scripted();
    const outcome = await run(second.client, store, stepsOf());
    expect(second.requests.map(kindOf)).toEqual(['summarizer']);
    expect(outcome).toMatchObject({ generatedSteps: 0, reusedSteps: 5, isSummaryGenerated: true });
    expect(store.summary?.fields).toMatchObject({ alignment_score: 8 });
  });

  it('a changed step (a new mark) is generated again with every step after it, and the summary', async () => {
    const store = memoryStore();
    await run(scripted().client, store, stepsOf());
    const again = scripted();
    const outcome = await run(again.client, store, stepsOf({ 2: 'incorrect' }));
    expect(outcome).toMatchObject({ generatedSteps: 3, reusedSteps: 2, isSummaryGenerated: true });
  });

  it('an answer that cannot be read is asked once more, then COT_ANSWER_INVALID', async () => {
    const store = memoryStore();
    const once = scripted({ override: (n) => (n === 2 ? 'not json' : undefined) });
    await run(once.client, store, stepsOf());
    expect(once.requests.map(kindOf).slice(0, 3)).toEqual(['generator', 'reflector', 'reflector']);

    const store2 = memoryStore();
    const always = scripted({
      override: (_n, req) => (kindOf(req) === 'generator' ? 'Observation: no sections' : undefined),
    });
    await expect(run(always.client, store2, stepsOf())).rejects.toMatchObject({
      code: 'COT_ANSWER_INVALID',
    });
    expect(always.requests).toHaveLength(2);
    expect(store2.steps.size).toBe(0);
  });

  it('a step without code is left out and the summary still runs (upstream never summarises)', async () => {
    const codes = [...CODES];
    codes[1] = '';
    const { client, requests } = scripted();
    const store = memoryStore();
    const outcome = await run(client, store, stepsOf({}, codes));
    expect(outcome).toMatchObject({ generatedSteps: 4, skippedSteps: 1, isSummaryGenerated: true });
    expect(requests.map(kindOf).at(-1)).toBe('summarizer');
  });

  it('--double-check: the check turn is filled with the first answer (upstream: placeholders)', async () => {
    const fixed = scripted();
    await run(fixed.client, memoryStore(), stepsOf(), undefined, { isDoubleCheck: true });
    const check = fixed.requests[1]!;
    expect(check.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'user']);
    const checkText = (check.messages[2]!.content as readonly { text?: string }[])[0]!.text!;
    expect(checkText).toContain(
      '## Observation:\nobs 1 \n\n## Thought:\nthought 1 \n\n## Action:\naction 1',
    );
    expect(check.messages[1]!.content).toContain('## Observation:\nobs 1');

    const quirks = scripted();
    await run(quirks.client, memoryStore(), stepsOf(), undefined, {
      isDoubleCheck: true,
      isUpstreamQuirks: true,
    });
    const quirkText = (quirks.requests[1]!.messages[2]!.content as readonly { text?: string }[])[0]!
      .text!;
    expect(quirkText).toContain('## Observation:\n{observation} \n\n## Thought:\n{thought}');
  });

  it('a reviewer’s verdict on the last step is kept; --upstream-quirks stores "correct"', async () => {
    const kept = memoryStore();
    await run(scripted().client, kept, stepsOf({ 4: 'incorrect' }));
    expect(kept.steps.get(4)).toMatchObject({ lastStepCorrect: false, verdictSource: 'reviewer' });
    const quirk = memoryStore();
    await run(scripted().client, quirk, stepsOf({ 4: 'incorrect' }), undefined, {
      isUpstreamQuirks: true,
    });
    expect(quirk.steps.get(4)).toMatchObject({
      lastStepCorrect: true,
      verdictSource: 'final-step',
    });
  });
});
