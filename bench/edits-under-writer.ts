// Benchmark (issue 10, "what it must show"): 500 edits through the real HTTP server (one client
// sending in sequence while four others send concurrently) while another process holds the
// library's write lock for up to 2 s at a time. Prints edits acknowledged, errors, lost edits
// (acknowledged but not in the database afterwards) and latency percentiles. The recording is the
// AgentNet example (its page is rebuilt for every answer, as the UI gets it).
//   npx tsx bench/edits-under-writer.ts
// BENCH_EDITS (default 500), BENCH_HOLDS_MS (comma list, default 2000,500,1000,250; "0" for
// no writer), BENCH_GAP_MS (free time between holds, default 400).
import path from 'node:path';
import { createEventHub, createServer, mediaPath } from '../src/server';
import { createServices } from '../src/services/create-services';
import { importAgentNetFolder } from '../src/services/import/agentnet-import';
import { DB_FILE_NAME } from '../src/services/library/library';
import { listEdits, openDatabase, resolveRecordingSeq } from '../src/store';
import { tempLibrary } from '../tests/helpers/library';
import { FIXTURE_DIR } from '../tests/helpers/paths';
import { quantile, runEditLoad, startLockHolder } from '../tests/server/edit-load';

const EDITS = Number(process.env.BENCH_EDITS ?? 500);
const HOLDS = (process.env.BENCH_HOLDS_MS ?? '2000,500,1000,250').split(',').map(Number);
const GAP_MS = Number(process.env.BENCH_GAP_MS ?? 400);

const t = tempLibrary();
const id = (await importAgentNetFolder(t.lib, FIXTURE_DIR, { appVersion: 'bench' })).id;
const server = await createServer({
  services: createServices(t.lib, { appVersion: 'bench', mediaUrl: mediaPath }),
  events: createEventHub(),
  staticDir: t.dir,
});
const dbFile = path.join(t.dir, DB_FILE_NAME);
const holder = HOLDS.some((h) => h > 0) ? startLockHolder(dbFile, HOLDS, GAP_MS) : null;
await holder?.held;
const report = await runEditLoad({
  port: server.port,
  token: server.token,
  recordingId: id,
  stepId: 'agentnet:1',
  edits: EDITS,
});
await holder?.stop();
await server.close();

const check = openDatabase(dbFile);
const stored = new Set(
  listEdits(check, resolveRecordingSeq(check, id).seq).map((e) =>
    e.edit.op === 'relabel' ? e.edit.label : '',
  ),
);
check.close();
t.cleanup();
const lost = report.acknowledged.filter((label) => !stored.has(label)).length;
const ms = (v: number) => `${v.toFixed(0)} ms`;
console.log(
  `writer: ${holder ? `holds ${HOLDS.join('/')} ms, ${GAP_MS} ms free between, ${holder.holds()} holds` : 'none'}`,
);
console.log(
  `edits: ${EDITS} sent, ${report.acknowledged.length} acknowledged, ${report.errors.length} errors, ${lost} lost, ` +
    `wall ${(report.wallMs / 1000).toFixed(1)} s`,
);
console.log(
  `latency (all): p50 ${ms(quantile(report.latenciesMs, 0.5))}, p99 ${ms(quantile(report.latenciesMs, 0.99))}, ` +
    `max ${ms(quantile(report.latenciesMs, 1))}`,
);
console.log(
  `latency (sequential client): p50 ${ms(quantile(report.sequentialMs, 0.5))}, ` +
    `p99 ${ms(quantile(report.sequentialMs, 0.99))}`,
);
for (const e of report.errors.slice(0, 5)) {
  console.log(`error: ${e}`);
}
process.exitCode = report.errors.length || lost ? 1 : 0;
