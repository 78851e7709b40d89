// Benchmark: action reduction of 1,000,000 synthetic raw events (moves, clicks, double clicks,
// drags, typing, scrolls, hotkeys). Prints measured wall time, process CPU time and events/s
// per run (the CPU time includes V8's parallel GC threads).
import { reduce } from '../src/pipeline/reduce';
import { TEST_CONTEXT } from '../tests/pipeline/reduce/event-script';
import { syntheticRawEvents } from '../tests/pipeline/reduce/synthetic';

const TOTAL = Number(process.env.BENCH_EVENTS ?? 1_000_000);
const RUNS = Number(process.env.BENCH_RUNS ?? 3);

const events = syntheticRawEvents(TOTAL, 1);
const counts = new Map<string, number>();
for (const event of events) {
  counts.set(event.kind, (counts.get(event.kind) ?? 0) + 1);
}
console.log(
  `action reduction, ${TOTAL.toLocaleString('en')} synthetic raw events ` +
    `(${[...counts].map(([kind, n]) => `${kind} ${n.toLocaleString('en')}`).join(', ')})`,
);

// Warm-up on a slice so the first measured run is not dominated by JIT compilation.
reduce(events.slice(0, 50_000), TEST_CONTEXT);

for (let run = 1; run <= RUNS; run += 1) {
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  const result = reduce(events, TEST_CONTEXT);
  const ms = performance.now() - t0;
  const cpu = process.cpuUsage(cpu0);
  console.log(
    `  run ${run}: ${ms.toFixed(0)} ms total (process CPU ${((cpu.user + cpu.system) / 1000).toFixed(0)} ms), ` +
      `${Math.round((TOTAL / ms) * 1000).toLocaleString('en')} events/s, ` +
      `${result.steps.length.toLocaleString('en')} steps, ` +
      `${result.unowned.length.toLocaleString('en')} unowned`,
  );
}
