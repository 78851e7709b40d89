// Benchmark: AgentNet fixture import into a fresh library, by phase. "Excluding the video copy"
// subtracts the time spent copying and hashing the 3.5 MB mp4; the ffprobe pass is shown apart.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { importAgentNetFolder } from '../src/services/import/agentnet-import';
import { openLibrary } from '../src/services/library/library';
import { resolveFfmpeg } from '../src/infra/ffmpeg/binary';
import { fixturePath } from '../tests/helpers/fixture';

const RUNS = Number(process.env.BENCH_RUNS ?? 5);
const fixture = fixturePath('agentnet-raw/win10-display-settings');
const binaries = await resolveFfmpeg();
const rows: Awaited<ReturnType<typeof importAgentNetFolder>>['timings'][] = [];
for (let i = 0; i < RUNS; i += 1) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cua-bench-import-'));
  const lib = openLibrary(dir);
  const r = await importAgentNetFolder(lib, fixture, { appVersion: 'bench', binaries });
  rows.push(r.timings);
  lib.close();
  fs.rmSync(dir, { recursive: true, force: true });
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const m = (k: keyof (typeof rows)[number]) => median(rows.map((r) => r[k]));
const excl = median(rows.map((r) => r.totalMs - r.videoCopyMs));
const exclProbe = median(rows.map((r) => r.totalMs - r.videoCopyMs - r.probeMs));
console.log(
  `AgentNet fixture import (4,099 events, 14 steps, 53 a11y trees), median of ${RUNS} runs`,
);
console.log(
  `  read+validate ${m('readMs').toFixed(1)} ms, ffprobe ${m('probeMs').toFixed(1)} ms, copy ${m('copyMs').toFixed(1)} ms (video ${m('videoCopyMs').toFixed(1)} ms), db ${m('dbMs').toFixed(1)} ms`,
);
console.log(
  `  total ${m('totalMs').toFixed(1)} ms; excluding the video copy ${excl.toFixed(1)} ms; excluding video copy and ffprobe ${exclProbe.toFixed(1)} ms`,
);
