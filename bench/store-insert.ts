// Benchmark: raw-event insert throughput into a file-backed library database (WAL), batched in
// transactions the way the recorder and importer write. Prints events/s per batch size.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { insertEvents, openDatabase } from '../src/store';
import { makeRecording, syntheticEvents } from '../tests/helpers/store';

const TOTAL = Number(process.env.BENCH_EVENTS ?? 1_000_000);

function run(batch: number): number {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cua-bench-'));
  const db = openDatabase(path.join(dir, 'library.sqlite'));
  const { seq } = makeRecording(db);
  const events = syntheticEvents(TOTAL);
  const write = db.transaction((slice: typeof events) => insertEvents(db, seq, slice));
  const t0 = performance.now();
  for (let i = 0; i < events.length; i += batch) {
    write(events.slice(i, i + batch));
  }
  const ms = performance.now() - t0;
  db.close();
  fs.rmSync(dir, { recursive: true, force: true });
  return (TOTAL / ms) * 1000;
}

console.log(
  `raw-event insert, ${TOTAL.toLocaleString('en')} events, file DB (WAL, synchronous=NORMAL)`,
);
for (const batch of [100, 1_000, 10_000]) {
  const rate = run(batch);
  console.log(
    `  batch ${String(batch).padStart(6)}: ${Math.round(rate).toLocaleString('en')} events/s`,
  );
}
