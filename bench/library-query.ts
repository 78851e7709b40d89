// Benchmark: the library page query on a file-backed library of 10,000 recordings (WAL, every
// tenth with steps and events). Prints the time of a page per query shape, median of many runs.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { RecordingQuery } from '../src/shared/contract';
import { RECORDING_STATUSES } from '../src/shared/domain';
import { insertEvents, openDatabase, queryRecordingPage, replaceSteps } from '../src/store';
import { makeRecording, syntheticEvents } from '../tests/helpers/store';

const RECORDINGS = Number(process.env.BENCH_RECORDINGS ?? 10_000);
const RUNS = Number(process.env.BENCH_RUNS ?? 50);
const T0 = 1_700_000_000_000;

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cua-bench-'));
const db = openDatabase(path.join(dir, 'library.sqlite'));
const fill0 = performance.now();
db.transaction(() => {
  for (let i = 0; i < RECORDINGS; i += 1) {
    const { seq } = makeRecording(db, {
      task: `Task ${i}: open the settings and change option ${i % 97}`,
      status: RECORDING_STATUSES[i % RECORDING_STATUSES.length],
      durationMs: (i * 7919) % 600_000,
      nowMs: T0 + i * 60_000,
    });
    if (i % 10 === 0) {
      replaceSteps(
        db,
        seq,
        Array.from({ length: 25 }, (_, k) => ({
          id: `s${k}`,
          index: k,
          kind: 'click' as const,
          description: 'Single left Click',
          label: 'click',
          calls: [],
          startMs: k,
          endMs: k + 1,
          eventStartIdx: null,
          coordinate: null,
          preMove: null,
          target: null,
          extra: {},
          diagnostics: [],
        })),
        'bench',
      );
      insertEvents(db, seq, syntheticEvents(1000));
    }
  }
})();
const fillMs = performance.now() - fill0;

const QUERIES: [string, RecordingQuery][] = [
  ['newest 200 (default)', {}],
  ['page 40 of 50', { offset: 8000, limit: 200 }],
  ['status filter', { status: 'complete' }],
  ['review status + date range', { reviewStatus: 'draft', fromMs: T0, toMs: T0 + 3e8 }],
  ['sort by task', { sort: 'task' }],
  ['sort by steps desc', { sort: 'steps', order: 'desc' }],
  ['search "option 42"', { search: 'option 42' }],
];

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
}

console.log(
  `library page query, ${RECORDINGS.toLocaleString('en')} recordings (file DB, WAL; filled in ${(fillMs / 1000).toFixed(1)} s), median of ${RUNS} runs`,
);
for (const [name, q] of QUERIES) {
  const times: number[] = [];
  let total = 0;
  for (let r = 0; r < RUNS; r += 1) {
    const t0 = performance.now();
    total = queryRecordingPage(db, q).total;
    times.push(performance.now() - t0);
  }
  console.log(`  ${name.padEnd(28)} ${median(times).toFixed(2).padStart(7)} ms  (total ${total})`);
}
db.close();
fs.rmSync(dir, { recursive: true, force: true });
