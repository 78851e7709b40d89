// Benchmark: `agentnet-jsonl` export of the example recording with its stored keyframes (fresh:
// the PNGs are read from the library) against the same export recomputing them from the video
// (a library where they were never computed), interleaved in one process; medians of
// BENCH_RUNS runs each (default 5). Both exports write the same bytes (checked).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { resolveFfmpeg } from '../src/infra/ffmpeg/binary';
import { runExport } from '../src/services/export/export-service';
import { importAgentNetFolder } from '../src/services/import/agentnet-import';
import { openLibrary } from '../src/services/library/library';
import { computeKeyframes } from '../src/services/keyframes/keyframes';
import { fixturePath } from '../tests/helpers/fixture';

const RUNS = Number(process.env.BENCH_RUNS ?? 5);
const fixture = fixturePath('agentnet-raw/win10-display-settings');
const binary = await resolveFfmpeg();
const binaries = { ffmpegPath: binary.path, ffprobePath: binary.ffprobePath };
const root = fs.mkdtempSync(path.join(os.tmpdir(), 'cua-bench-export-kf-'));

// two libraries holding the example: one with stored keyframes, one without
const stored = openLibrary(path.join(root, 'stored'));
const bare = openLibrary(path.join(root, 'bare'));
const storedId = (await importAgentNetFolder(stored, fixture, { appVersion: 'bench' })).id;
const bareId = (await importAgentNetFolder(bare, fixture, { appVersion: 'bench' })).id;
const t0 = performance.now();
await computeKeyframes(stored, storedId, binaries);
const computeMs = performance.now() - t0;

async function exportOnce(lib: typeof stored, id: string, out: string): Promise<number> {
  fs.rmSync(out, { recursive: true, force: true });
  const start = performance.now();
  await runExport(lib, [id], {
    format: 'agentnet-jsonl',
    outDir: out,
    appVersion: 'bench',
    ...binaries,
  });
  return performance.now() - start;
}

const withStored: number[] = [];
const recomputing: number[] = [];
const outA = path.join(root, 'out-stored');
const outB = path.join(root, 'out-recomputed');
await exportOnce(stored, storedId, outA); // warm-up (module loading, OS cache)
for (let i = 0; i < RUNS; i += 1) {
  withStored.push(await exportOnce(stored, storedId, outA));
  recomputing.push(await exportOnce(bare, bareId, outB));
}
// the two outputs are the same files, byte for byte
const files = (dir: string) =>
  (fs.readdirSync(dir, { recursive: true }) as string[])
    .filter((f) => fs.statSync(path.join(dir, f)).isFile())
    .sort();
const same =
  JSON.stringify(files(outA)) === JSON.stringify(files(outB)) &&
  files(outA).every((f) =>
    fs.readFileSync(path.join(outA, f)).equals(fs.readFileSync(path.join(outB, f))),
  );

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const a = median(withStored);
const b = median(recomputing);
console.log(
  `agentnet-jsonl export of the example recording (14 steps + terminate, 15 images), median of ${RUNS} interleaved runs`,
);
console.log(
  `  with stored keyframes:   ${a.toFixed(0)} ms  (runs: ${withStored.map((x) => x.toFixed(0)).join(', ')})`,
);
console.log(
  `  recomputing keyframes:   ${b.toFixed(0)} ms  (runs: ${recomputing.map((x) => x.toFixed(0)).join(', ')})`,
);
console.log(
  `  ratio: ${(b / a).toFixed(1)}x faster with stored keyframes; outputs identical: ${same ? 'yes' : 'NO'}`,
);
console.log(`  (computing and storing them once after the import took ${computeMs.toFixed(0)} ms)`);

stored.close();
bare.close();
fs.rmSync(root, { recursive: true, force: true });
