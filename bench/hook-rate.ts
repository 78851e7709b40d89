// The input-hook child's own cost by input rate, on a private Xvfb: the built child
// (out/node/hook-child.js, `npm run build:node`) runs alone while python3-xlib moves the pointer
// in a loop for BENCH_SECONDS (default 12) at each rate, with a key every 25 moves as in
// bench/recorder.ts. Prints, per rate and hook, the child's CPU (share of one core, all threads),
// its voluntary context switches (wake-ups) a second and its writes a second, BENCH_RUNS times
// (default 2). A mouse polled at 125–1000 Hz makes the X server flush one batch per move; the X
// RECORD hook reads fast input once per READ_PACE_MS (src/recorder/input/x11/read-pacer.ts).
// usage: npx tsx bench/hook-rate.ts   (BENCH_HOOKS: comma-separated from x11-record,uiohook)
import fs from 'node:fs';
import path from 'node:path';
import { startDesktop } from '../tests/helpers/desktop';
import { REPO_ROOT } from '../tests/helpers/paths';
import { POINTER_ACTIVITY } from './activity';
import { threadsUsage as usage } from './proc-usage';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 12);
const RUNS = Math.max(1, Number(process.env.BENCH_RUNS ?? 2));
const HOOKS = (process.env.BENCH_HOOKS ?? 'x11-record,uiohook').split(',');
/** Pause between moves, s: about 50, 160 and 400 moves a second here (Python's sleep). */
const PAUSES = [0.02, 0.004, 0.001];
const CHILD = path.join(REPO_ROOT, 'out', 'node', 'hook-child.js');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function main(): Promise<void> {
  if (!fs.existsSync(CHILD)) {
    throw new Error(`${CHILD} is missing: run npm run build:node first`);
  }
  const desktop = await startDesktop({ shouldWaitForWindowManager: false });
  console.log(
    `hook child alone: ${SECONDS} s of pointer moves per rate (a key every 25 moves), ${RUNS} runs`,
  );
  try {
    for (const hook of HOOKS) {
      for (const pause of PAUSES) {
        for (let run = 1; run <= RUNS; run += 1) {
          const child = desktop.spawn(process.execPath, [CHILD, '--heartbeat-ms', '500'], {
            stdio: ['pipe', 'pipe', 'inherit'],
            env: hook === 'uiohook' ? { CUA_INPUT_HOOK: 'uiohook' } : {},
          });
          let writes = 0;
          child.stdout!.on('data', () => (writes += 1));
          await sleep(1500);
          const activity = desktop.spawn(
            '/usr/bin/python3',
            ['-c', POINTER_ACTIVITY, String(SECONDS), String(pause)],
            { stdio: ['ignore', 'pipe', 'inherit'] },
          );
          let moved = '';
          activity.stdout!.on('data', (d: Buffer) => (moved += d.toString()));
          await sleep(1000);
          const u0 = usage(child.pid!);
          const w0 = writes;
          const t0 = performance.now();
          await sleep((SECONDS - 2) * 1000);
          const u1 = usage(child.pid!);
          const seconds = (performance.now() - t0) / 1000;
          const w1 = writes;
          await new Promise((r) => activity.once('close', r));
          child.stdin!.end();
          await new Promise((r) => child.once('close', r));
          console.log(
            `${hook.padEnd(10)} ${(Number(moved) / SECONDS).toFixed(0).padStart(4)} moves/s: ` +
              `${(((u1.cpu - u0.cpu) / seconds) * 100).toFixed(1)} % of a core, ` +
              `${((u1.wakes - u0.wakes) / seconds).toFixed(0)} wake-ups/s, ` +
              `${((w1 - w0) / seconds).toFixed(0)} writes/s`,
          );
        }
      }
    }
  } finally {
    await desktop.stop();
  }
}

await main();
