// Benchmark (issue 30): CoT synthesis throughput for a 100-step batch against the OpenAI stub
// (tests/helpers/openai-stub.ts, a real HTTP server) at a set latency per call, with the model
// client's concurrency at 1, 4 and 16. Prints requests/s, wall time, the speed-up against one
// request at a time (upstream's default: gen_cot.py --num_threads 1), calls and tokens per step.
//
// Two modes (BENCH_MODE, both by default):
// - runner: the pipeline's own runner (src/pipeline/cot/run.ts runCot) per trajectory, through
//   the model client (src/infra/openai): cues drawn and every image JPEG-encoded per call as a
//   real run does (1920×1080 keyframes), answers parsed;
// - calls: the same call pattern (upstream's process_traj) straight through the client with the
//   images encoded once, so only the HTTP side is measured: per step a generator call (keyframe
//   + the 300-px patch for a pointer step) and a reflector call (keyframe, patch, next keyframe),
//   the last step no reflector, then one summarizer call.
// Steps of one trajectory are sequential (each prompt needs the previous step's thought and
// reflection); trajectories run side by side and the client's gate holds the concurrency.
// Prompt texts are upstream's templates; the stub's usage counts ~4 characters a token and
// OpenAI's tile formula for images.
//
//   npx tsx bench/cot-throughput.ts   (BENCH_MODE=runner,calls BENCH_LATENCY_MS=300
//                  BENCH_STEPS=100 BENCH_STEPS_PER_TRAJECTORY=5 BENCH_CONCURRENCY=1,4,16)

import jpeg from 'jpeg-js';
import { createOpenAiChatClient } from '../src/infra/openai/chat-client';
import { createRequestGate } from '../src/infra/openai/gate';
import type { ChatContentPart } from '../src/shared/chat';
import type { ChatClient } from '../src/pipeline/cot/types';
import {
  COT_GENERATOR_PROMPT_FOR_KEYBOARD_ACTION,
  COT_GENERATOR_PROMPT_FOR_MOUSE_ACTION,
  FINAL_TRAJECTORY_EVAL_PROMPT,
  REFLECTION_FORMAT_PROMPT,
  TRAJECTORY_EVAL_FORMAT_PROMPT,
  TRANSIT_REFLECTION_FORMAT_PROMPT,
  TRANSIT_REFLECTION_WITH_IMAGE_PATCH_FORMAT_PROMPT,
} from '../src/pipeline/cot/prompts';
import { pyFormat } from '../src/pipeline/cot/py-format';
import type { RgbImage } from '../src/pipeline/cot/cue';
import { runCot, type CotStepInput } from '../src/pipeline/cot/run';
import { fence, startOpenAiStub } from '../tests/helpers/openai-stub';

const LATENCY_MS = Number(process.env.BENCH_LATENCY_MS ?? 300);
const STEPS = Number(process.env.BENCH_STEPS ?? 100);
const PER_TRAJECTORY = Number(process.env.BENCH_STEPS_PER_TRAJECTORY ?? 5);
const CONCURRENCY = (process.env.BENCH_CONCURRENCY ?? '1,4,16').split(',').map(Number);
const MODES = (process.env.BENCH_MODE ?? 'runner,calls').split(',');

const GENERATOR_ANSWER =
  '## Observation:\nThe Settings window is open; the Display tab sits in the left column, and the ' +
  'brightness slider is not visible yet.\n\n## Thought:\nThe previous click opened Settings as ' +
  'intended. To change the brightness I first need the Display page, so I click its tab in the ' +
  'sidebar.\n\n## Action:\nClick the "Display" tab in the left sidebar of the Settings window.';
const REFLECTOR_ANSWER = fence({
  last_step_correct: true,
  last_step_redundant: false,
  reflection:
    'The click on the Display tab opened the Display page: the brightness slider is now visible, ' +
    'so the step moved the task forward.',
});
const SUMMARY_ANSWER = fence({
  task_completed: true,
  alignment_score: 9,
  efficiency_score: 8,
  task_difficulty: 3,
  reason: 'Every step served the goal; one extra scroll.',
});

function screenshot(width: number, height: number): RgbImage {
  const rgb = new Uint8Array(width * height * 3);
  for (let y = 0; y < height; y += 1) {
    for (let x = 0; x < width; x += 1) {
      const i = (y * width + x) * 3;
      // a window-like pattern (bars and gradients) so the JPEG is screenshot-sized, not flat
      rgb[i] = (x >> 3) % 2 ? 240 : 40 + (y % 200);
      rgb[i + 1] = (y >> 4) % 3 ? 230 : (x * 7) % 255;
      rgb[i + 2] = ((x + y) >> 5) % 2 ? 250 : 90;
    }
  }
  return { width, height, rgb };
}

function jpegDataUrl({ width, height, rgb }: RgbImage): string {
  const data = Buffer.alloc(width * height * 4, 255);
  for (let p = 0; p < width * height; p += 1) {
    data.set(rgb.subarray(p * 3, p * 3 + 3), p * 4);
  }
  return `data:image/jpeg;base64,${jpeg.encode({ data, width, height }, 75).data.toString('base64')}`;
}

const image = (url: string): ChatContentPart => ({
  type: 'image_url',
  image_url: { url, detail: 'high' },
});

interface Frames {
  keyframe: string;
  patch: string;
}

async function trajectory(
  client: ChatClient,
  t: number,
  steps: number,
  frames: Frames,
): Promise<void> {
  const goal = `Turn the screen brightness down to 40% (trajectory ${t})`;
  const actions: string[] = [];
  let thought = 'None';
  let effect = 'None';
  for (let i = 0; i < steps; i += 1) {
    const code = stepCode(i);
    const pointer = code.startsWith('pyautogui.click');
    const history = actions.length
      ? actions.map((a, n) => `Step ${n + 1}: ${a}\n`).join('')
      : 'None';
    const prompt = pyFormat(
      pointer ? COT_GENERATOR_PROMPT_FOR_MOUSE_ACTION : COT_GENERATOR_PROMPT_FOR_KEYBOARD_ACTION,
      {
        goal,
        previous_actions: history,
        former_thought: thought,
        former_action_effect: effect,
        action_commands: code,
      },
    );
    const images = pointer
      ? [image(frames.keyframe), image(frames.patch)]
      : [image(frames.keyframe)];
    const generated = await client.complete({
      messages: [{ role: 'user', content: [{ type: 'text', text: prompt }, ...images] }],
      temperature: 0,
    });
    thought = generated.text.split('## Thought:\n')[1]?.split('\n\n')[0] ?? '';
    const action = generated.text.split('## Action:\n')[1] ?? '';
    if (i < steps - 1) {
      const reflectorPrompt = pyFormat(
        pointer
          ? TRANSIT_REFLECTION_WITH_IMAGE_PATCH_FORMAT_PROMPT
          : TRANSIT_REFLECTION_FORMAT_PROMPT,
        { goal, history_steps: history, thought, action, code },
      );
      const reflected = await client.complete({
        messages: [
          {
            role: 'user',
            content: [
              image(frames.keyframe),
              ...(pointer ? [image(frames.patch)] : []),
              image(frames.keyframe),
              { type: 'text', text: `${reflectorPrompt}\n\n${REFLECTION_FORMAT_PROMPT}` },
            ],
          },
        ],
        temperature: 0,
      });
      effect = (
        JSON.parse(reflected.text.replace(/^```json\s*|\s*```$/g, '')) as { reflection: string }
      ).reflection;
    }
    actions.push(action);
  }
  const stepsText = actions.map((a, n) => `Step ${n + 1}: ${a}`).join('\n');
  await client.complete({
    messages: [
      {
        role: 'user',
        content: [
          {
            type: 'text',
            text:
              pyFormat(TRAJECTORY_EVAL_FORMAT_PROMPT, { goal, steps: stepsText }) +
              '\n\n' +
              FINAL_TRAJECTORY_EVAL_PROMPT,
          },
        ],
      },
    ],
    temperature: 0,
  });
}

function stepCode(i: number): string {
  // four pointer steps in five, as in the example recording
  return i % 5 !== 4
    ? `pyautogui.click(x=${(0.1 + i / 50).toFixed(4)}, y=0.4521)`
    : "pyautogui.write(message='40')";
}

/** One trajectory through the pipeline's runner. */
async function runnerTrajectory(
  client: ChatClient,
  t: number,
  steps: number,
  frame: RgbImage,
): Promise<void> {
  const inputs: CotStepInput[] = Array.from({ length: steps }, (_, i) => ({
    index: i,
    code: stepCode(i),
    mark: null,
    inputSha256: `t${t}-s${i}`,
  }));
  await runCot(
    {
      goal: `Turn the screen brightness down to 40% (trajectory ${t})`,
      steps: inputs,
      stored: new Map(),
      storedSummary: null,
      summaryInputSha256: `t${t}-summary`,
    },
    {
      client,
      image: () => Promise.resolve(frame),
      saveStep: () => undefined,
      saveSummary: () => undefined,
    },
  );
}

async function main(): Promise<void> {
  const frame = screenshot(1920, 1080);
  const frames: Frames = {
    keyframe: jpegDataUrl(frame),
    patch: jpegDataUrl(screenshot(300, 300)),
  };
  const trajectories = Math.ceil(STEPS / PER_TRAJECTORY);
  console.log(
    `CoT batch: ${STEPS} steps in ${trajectories} trajectories of ${PER_TRAJECTORY}, stub ` +
      `latency ${LATENCY_MS} ms per call, 1920×1080 keyframe ` +
      `${Math.round((frames.keyframe.length * 3) / 4 / 1024)} KB as JPEG`,
  );
  const rows: string[] = [];
  for (const mode of MODES) {
    let baseWall = 0;
    for (const concurrency of CONCURRENCY) {
      const stub = await startOpenAiStub({ latencyMs: LATENCY_MS });
      stub.when(/## Observation/, { text: GENERATOR_ANSWER });
      stub.when((r) => r.promptText.includes(REFLECTION_FORMAT_PROMPT), {
        text: REFLECTOR_ANSWER,
      });
      stub.fallback({ text: SUMMARY_ANSWER });
      const client = createOpenAiChatClient({
        baseUrl: stub.baseUrl,
        model: 'stub-vision',
        env: {},
        gate: createRequestGate({ concurrency, requestsPerMinute: 0 }),
      });
      const cpu0 = process.cpuUsage();
      const t0 = performance.now();
      await Promise.all(
        Array.from({ length: trajectories }, (_, t) => {
          const steps = Math.min(PER_TRAJECTORY, STEPS - t * PER_TRAJECTORY);
          return mode === 'runner'
            ? runnerTrajectory(client, t, steps, frame)
            : trajectory(client, t, steps, frames);
        }),
      );
      const wallS = (performance.now() - t0) / 1000;
      const cpu = process.cpuUsage(cpu0);
      const cpuS = (cpu.user + cpu.system) / 1e6;
      if (concurrency === CONCURRENCY[0]) {
        baseWall = wallS;
      }
      const s = client.stats();
      const bodyMB = stub.requests.reduce((n, r) => n + r.rawBody.length, 0) / 1e6;
      rows.push(
        `| ${mode} | ${concurrency} | ${s.calls} | ${wallS.toFixed(1)} s | ` +
          `${(s.calls / wallS).toFixed(2)} | ${(baseWall / wallS).toFixed(2)}× | ` +
          `${stub.maxInFlight} | ${cpuS.toFixed(1)} s | ${(s.calls / STEPS).toFixed(2)} | ` +
          `${Math.round(s.promptTokens / STEPS)} + ${Math.round(s.completionTokens / STEPS)} | ` +
          `${(bodyMB / STEPS).toFixed(2)} MB |`,
      );
      await stub.close();
      console.log(rows[rows.length - 1]);
    }
  }
  console.log(
    '\n| mode | concurrency | calls | wall | requests/s | speed-up vs 1 | most in flight | ' +
      'process CPU | calls/step | tokens/step (prompt + completion) | request bytes/step |\n' +
      '|---|---|---|---|---|---|---|---|---|---|---|',
  );
  for (const r of rows) {
    console.log(r);
  }
}

await main();
