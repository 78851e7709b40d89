// Input-hook latency and completeness on a private Xvfb: XTest injection (python3-xlib
// `xtest.fake_input` + `display.sync()`, stamped with CLOCK_MONOTONIC right before sending) →
// InputHook. Prints p50/p95/p99/max per scenario for
//   callback  = the child's stamp − injection (uiohook-napi: its callback; the X RECORD hook: the
//               read of its socket; the stored time is the server's)
//   delivered = onEvents call in the parent − injection      (end to end, incl. the batch cadence)
//   stamp     = stored tMs (X server time) − injection       (timestamp error of the stored event)
// plus completeness/order of a 5,000-move burst, hook start-up and restart-gap figures.
// usage: node bin/run-ts.mjs bench/input-latency.ts
import { execFile, spawn } from 'node:child_process';
import { monotonicNowMs } from '../src/recorder/clock';
import { InputHook } from '../src/recorder/input/hook-process';
import type { InputGap } from '../src/recorder/input/hook-process';
import type { InputEvent } from '../src/recorder/input/normalize-input-event';

const PYTHON = '/usr/bin/python3';

// Injects moves (and optionally key presses) with XTest; prints the injection stamps as JSON.
const INJECTOR = `
import json, sys, time
from Xlib import display, X
from Xlib.ext import xtest
points = json.loads(sys.argv[1]); interval = float(sys.argv[2]); keys = int(sys.argv[3])
d = display.Display()
stamps = []
for x, y in points:
    t = time.clock_gettime(time.CLOCK_MONOTONIC) * 1000
    xtest.fake_input(d, X.MotionNotify, x=x, y=y)
    d.sync()
    stamps.append(t)
    if interval > 0:
        time.sleep(interval / 1000)
key_stamps = []
for _ in range(keys):
    t = time.clock_gettime(time.CLOCK_MONOTONIC) * 1000
    xtest.fake_input(d, X.KeyPress, 38)
    d.sync()
    xtest.fake_input(d, X.KeyRelease, 38)
    d.sync()
    key_stamps.append(t)
    time.sleep(0.01)
print(json.dumps({"moves": stamps, "keys": key_stamps}))
`;

type Xvfb = { display: string; stop: () => void };

async function startXvfb(): Promise<Xvfb> {
  const proc = spawn(
    'Xvfb',
    ['-displayfd', '3', '-screen', '0', '1280x800x24', '-nolisten', 'tcp'],
    {
      stdio: ['ignore', 'ignore', 'ignore', 'pipe'],
    },
  );
  const pipe = proc.stdio[3] as NodeJS.ReadableStream;
  const number = await new Promise<string>((resolve, reject) => {
    let text = '';
    pipe.on('data', (chunk: Buffer) => {
      text += chunk.toString();
      if (text.includes('\n')) {
        resolve(text.trim());
      }
    });
    proc.once('exit', (code) => reject(new Error(`Xvfb exited with ${code}`)));
  });
  return { display: `:${number}`, stop: () => proc.kill('SIGTERM') };
}

async function inject(
  display: string,
  points: number[][],
  intervalMs: number,
  keys: number,
): Promise<{ moves: number[]; keys: number[] }> {
  return await new Promise((resolve, reject) => {
    execFile(
      PYTHON,
      ['-c', INJECTOR, JSON.stringify(points), String(intervalMs), String(keys)],
      { env: { ...process.env, DISPLAY: display }, maxBuffer: 64 * 1024 * 1024 },
      (error, stdout, stderr) => {
        if (error) {
          reject(new Error(`injector failed: ${error.message} ${stderr}`));
          return;
        }
        resolve(JSON.parse(stdout) as { moves: number[]; keys: number[] });
      },
    );
  });
}

function percentiles(values: number[]): string {
  if (values.length === 0) {
    return 'n/a';
  }
  const sorted = [...values].sort((a, b) => a - b);
  const at = (p: number): string =>
    (sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] ?? NaN).toFixed(2);
  return `p50 ${at(0.5)}  p95 ${at(0.95)}  p99 ${at(0.99)}  max ${(sorted.at(-1) ?? NaN).toFixed(2)}`;
}

type Received = { event: InputEvent; deliveredMs: number };

async function runScenario(
  display: string,
  name: string,
  count: number,
  intervalMs: number,
  keys: number,
): Promise<void> {
  // pass 1 stores the callback stamp (server time off), pass 2 the X server time (default)
  for (const useServerTime of [false, true]) {
    const received: Received[] = [];
    const hook = new InputHook({
      env: { ...process.env, DISPLAY: display },
      serverTimeMaxLagMs: useServerTime ? undefined : 0,
      onEvents: (batch) => {
        const deliveredMs = monotonicNowMs();
        for (const event of batch) {
          received.push({ event, deliveredMs });
        }
      },
    });
    await hook.start();
    const points = Array.from({ length: count }, (_, i) => [
      1 + (i % 1200),
      1 + Math.floor(i / 1200),
    ]);
    const stamps = await inject(display, points, intervalMs, keys);
    const expected = count + keys * 2;
    const deadline = monotonicNowMs() + 10_000;
    while (received.length < expected && monotonicNowMs() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    await hook.stop();

    const moves = received.filter((r) => r.event.kind === 'move');
    const inOrder = moves.every(
      (r, i) => r.event.x === points[i]?.[0] && r.event.y === points[i]?.[1],
    );
    const keyDowns = received.filter((r) => r.event.kind === 'keydown');
    const stampOf = (r: Received, i: number, list: number[]): number =>
      r.event.tMs - (list[i] ?? NaN);
    const deliveredOf = (r: Received, i: number, list: number[]): number =>
      r.deliveredMs - (list[i] ?? NaN);
    const label = useServerTime ? 'stamp    ' : 'callback ';
    if (!useServerTime) {
      console.log(
        `\n${name}: received ${moves.length}/${count} moves (${inOrder ? 'in order, exact' : 'ORDER/COORDINATE MISMATCH'})` +
          (keys > 0 ? `, ${keyDowns.length}/${keys} key presses` : ''),
      );
    }
    console.log(
      `  moves ${label} ${percentiles(moves.map((r, i) => stampOf(r, i, stamps.moves)))}`,
    );
    if (!useServerTime) {
      console.log(
        `  moves delivered ${percentiles(moves.map((r, i) => deliveredOf(r, i, stamps.moves)))}`,
      );
    }
    if (keys > 0) {
      console.log(
        `  keys  ${label} ${percentiles(keyDowns.map((r, i) => stampOf(r, i, stamps.keys)))}`,
      );
      if (!useServerTime) {
        console.log(
          `  keys  delivered ${percentiles(keyDowns.map((r, i) => deliveredOf(r, i, stamps.keys)))}`,
        );
      }
    }
  }
}

async function startupAndRestart(display: string): Promise<void> {
  const startups: number[] = [];
  for (let i = 0; i < 5; i += 1) {
    const hook = new InputHook({
      env: { ...process.env, DISPLAY: display },
      onEvents: () => undefined,
    });
    const startedAt = monotonicNowMs();
    const info = await hook.start();
    startups.push(monotonicNowMs() - startedAt);
    console.log(
      `  start ${i + 1}: start() ${startups.at(-1)!.toFixed(0)} ms (spawn → hello ${info.startupMs.toFixed(0)} ms)`,
    );
    await hook.stop();
  }
  const gaps: InputGap[] = [];
  const hook = new InputHook({
    env: { ...process.env, DISPLAY: display },
    onEvents: () => undefined,
    onGap: (gap) => gaps.push(gap),
    restartBackoffMs: 100,
  });
  await hook.start();
  for (let i = 0; i < 3; i += 1) {
    const killedAt = monotonicNowMs();
    process.kill(hook.childPid ?? 0, 'SIGKILL');
    while (gaps.length <= i) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    const gap = gaps[i]!;
    console.log(
      `  SIGKILL ${i + 1}: capture again ${((gap.endMs ?? NaN) - killedAt).toFixed(0)} ms after the kill ` +
        `(reported gap ${((gap.endMs ?? NaN) - gap.startMs).toFixed(0)} ms, backoff 100 ms)`,
    );
  }
  await hook.stop();
}

const xvfb = await startXvfb();
try {
  console.log(`Xvfb ${xvfb.display}; hook child via tsx (bin/run-ts.mjs)`);
  await runScenario(xvfb.display, '200 moves @ 10 ms + 50 key presses', 200, 10, 50);
  await runScenario(xvfb.display, '1,000 moves @ 1 ms', 1000, 1, 0);
  await runScenario(xvfb.display, '5,000-move burst (no pause)', 5000, 0, 0);
  console.log('\nstart-up and restart after SIGKILL:');
  await startupAndRestart(xvfb.display);
} finally {
  xvfb.stop();
}
