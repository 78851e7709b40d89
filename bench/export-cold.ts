// Benchmark: the whole AgentNet-JSONL export of the example recording as ONE process from a cold
// start (a fresh temp library: import, then `export --all --format agentnet-jsonl`, nothing stored
// beforehand; the OS file cache warm from a discarded first run), against OpenCUA's own
// `data/data-process/src/extract_raw.py` on the same episode folder and against one full ffmpeg
// decode of the video to RGB (the floor any whole-video reader pays). Each run is measured from
// /proc (proc-tree.ts): wall time, CPU time (user + sys of the process and its children, e.g.
// ffmpeg) and the peak of the whole process tree's summed resident memory (sampled every 10 ms;
// the largest single process, what GNU time reports, is shown beside it).
//   npx tsx bench/export-cold.ts
//   OPENCUA_DATA_PROCESS=/path/to/OpenCUA/data/data-process npx tsx bench/export-cold.ts
// Env: BENCH_RUNS (default 3), EXPORT_COLD_ENTRY (see below),
// OPENCUA_PYTHON (default /usr/bin/python3; needs cv2, numpy, PIL,
// tqdm; a missing `pybase64` is stood in for by the standard library's base64 and said so).
// Our process is started the way bin/cua-annotator.mjs starts the CLI (whatever it does now:
// tsx over the sources, or built JavaScript), running import then export in one process.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { FIXTURE_DIR, REPO_ROOT } from '../tests/helpers/paths';
import { resolveFfmpeg } from '../src/infra/ffmpeg/binary';
import { measureTree, type TreeMeasure } from './proc-tree';

const RUNS = Number(process.env.BENCH_RUNS ?? 3);
const OPENCUA = process.env.OPENCUA_DATA_PROCESS ?? process.argv[2];
const PYTHON = process.env.OPENCUA_PYTHON ?? '/usr/bin/python3';
const BIN = path.join(REPO_ROOT, 'bin', 'cua-annotator.mjs');
const work = fs.mkdtempSync(path.join(os.tmpdir(), 'cua-export-cold-'));

type Measure = TreeMeasure;

/** Runs `argv` to the end, measuring its whole process tree; fails loudly on a non-zero exit. */
const timed = (argv: string[], options: { cwd: string; env?: NodeJS.ProcessEnv }) =>
  measureTree(argv, options);

/** Reads every file of a folder once (warms the OS file cache). */
function warmFiles(dir: string): void {
  for (const name of fs.readdirSync(dir)) {
    const p = path.join(dir, name);
    if (fs.statSync(p).isFile()) {
      fs.readFileSync(p);
    }
  }
}

// The driver: the CLI as `cua-annotator` runs it now (bin/cua-annotator.mjs starts either the built
// bundle out/node/cli.js or, with CUA_ANNOTATOR_FROM_SOURCE=1 or in older trees, the sources through
// tsx), with its one `main(process.argv.slice(2))` call made twice (import, then export) in one
// process. It is a copy of that entry written beside it (same relative imports) while the bench
// runs. (Importing the entry twice with query strings does not work: the second runs no command.)
const BUILT = path.join(REPO_ROOT, 'out', 'node', 'cli.js');
const binSource = fs.readFileSync(BIN, 'utf8');
const useBuilt =
  binSource.includes('out/node/cli.js') &&
  process.env.CUA_ANNOTATOR_FROM_SOURCE !== '1' &&
  fs.existsSync(BUILT);
// EXPORT_COLD_ENTRY: another build's cli.js (e.g. `npx vite build -c vite.node.config.ts
// --outDir out/before`), to compare two trees in the same conditions
const OTHER = process.env.EXPORT_COLD_ENTRY ? path.resolve(process.env.EXPORT_COLD_ENTRY) : null;
const ENTRY = OTHER ?? (useBuilt ? BUILT : BIN);
const builtAt = (file: string): string => fs.statSync(file).mtime.toISOString();
const startMode = OTHER
  ? `the bundle ${path.relative(REPO_ROOT, OTHER)} (built ${builtAt(OTHER)})`
  : useBuilt
    ? `the built bundle out/node/cli.js (built ${fs.statSync(BUILT).mtime.toISOString()})`
    : 'tsx over the TypeScript sources';
const entrySource = fs.readFileSync(ENTRY, 'utf8');
const CALL = 'main(process.argv.slice(2))';
if (!entrySource.includes(CALL)) {
  throw new Error(`${ENTRY} no longer calls ${CALL}: update the driver of this bench`);
}
const DRIVER = path.join(path.dirname(ENTRY), `.export-cold-driver-${process.pid}.mjs`);
fs.writeFileSync(
  DRIVER,
  entrySource.replace(/^#!.*\n/, '').replace(
    CALL,
    `(async () => {
  const [library, folder, out] = process.argv.slice(2);
  const code = await main(['import', folder, '--library', library]);
  return code || main(['export', '--all', '--format', 'agentnet-jsonl', '--out', out, '--library', library]);
})()`,
  ),
);
process.on('exit', () => fs.rmSync(DRIVER, { force: true }));

let runNo = 0;
async function ours(): Promise<Measure> {
  runNo += 1;
  const library = path.join(work, `lib-${runNo}`);
  const out = path.join(work, `out-${runNo}`);
  const m = await timed([process.execPath, DRIVER, library, FIXTURE_DIR, out], { cwd: REPO_ROOT });
  const jsonl = fs.readFileSync(path.join(out, 'agentnet.jsonl'), 'utf8').trim().split('\n');
  const images = fs.readdirSync(path.join(out, 'images')).length;
  if (jsonl.length !== 1 || images === 0) {
    throw new Error(`unexpected export: ${jsonl.length} records, ${images} images`);
  }
  fs.rmSync(library, { recursive: true, force: true });
  fs.rmSync(out, { recursive: true, force: true });
  return m;
}

/** Sets up OpenCUA's script on a raw folder holding only the example episode. */
function openCuaRunner(dataProcess: string): { run: () => Promise<Measure>; note: string } {
  const script = path.join(dataProcess, 'src', 'extract_raw.py');
  if (!fs.existsSync(script)) {
    throw new Error(`no ${script}`);
  }
  const rawDir = path.join(work, 'raw');
  fs.mkdirSync(rawDir);
  fs.symlinkSync(FIXTURE_DIR, path.join(rawDir, path.basename(FIXTURE_DIR)));
  const pythonPath = [dataProcess];
  let note = '';
  if (spawnSync(PYTHON, ['-c', 'import pybase64']).status !== 0) {
    const shim = path.join(work, 'shim');
    fs.mkdirSync(shim);
    fs.writeFileSync(path.join(shim, 'pybase64.py'), 'from base64 import b64encode, b64decode\n');
    pythonPath.push(shim);
    note = ' (pybase64 missing: the standard library base64 stands in)';
  }
  const env = { ...process.env, PYTHONPATH: pythonPath.join(path.delimiter) };
  return {
    note,
    run: async () => {
      const outFile = path.join(work, 'opencua-out.json');
      const m = await timed([PYTHON, '-m', 'src.extract_raw', outFile, '--raw_dir', rawDir], {
        cwd: dataProcess,
        env,
      });
      const episodes = JSON.parse(fs.readFileSync(outFile, 'utf8')) as {
        events: { frame: string | null }[];
      }[];
      const frames = episodes[0]?.events.filter((e) => e.frame).length ?? 0;
      if (episodes.length !== 1 || frames === 0) {
        throw new Error(`OpenCUA produced ${episodes.length} episodes, ${frames} frames`);
      }
      fs.rmSync(outFile);
      return m;
    },
  };
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
}

function summarise(runs: Measure[]): Measure {
  return {
    wallS: median(runs.map((r) => r.wallS)),
    cpuS: median(runs.map((r) => r.cpuS)),
    userS: median(runs.map((r) => r.userS)),
    sysS: median(runs.map((r) => r.sysS)),
    peakMiB: median(runs.map((r) => r.peakMiB)),
    peakProcessMiB: median(runs.map((r) => r.peakProcessMiB)),
  };
}

const row = (name: string, m: Measure) =>
  `  ${name.padEnd(34)} ${m.wallS.toFixed(2).padStart(6)} s  ${m.cpuS.toFixed(2).padStart(6)} s` +
  ` (${m.userS.toFixed(2)} user + ${m.sysS.toFixed(2)} sys)  ${m.peakMiB.toFixed(0).padStart(4)} MiB` +
  ` (largest process ${m.peakProcessMiB.toFixed(0)})`;

console.log(
  `cold export of ${path.basename(FIXTURE_DIR)} (one process: import into a fresh library, then ` +
    `export --format agentnet-jsonl), median of ${RUNS} runs after a discarded warm-up; ` +
    `Node ${process.versions.node}, CLI run as ${startMode}; ${os.cpus().length} cores, ` +
    `load ${os
      .loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')}`,
);
console.log(
  `  ${''.padEnd(34)} ${'wall'.padStart(8)}  ${'CPU'.padStart(8)}${''.padEnd(25)}  peak RSS`,
);
warmFiles(FIXTURE_DIR);
/** The warm-up run, then RUNS measured runs of `run`. */
async function repeat(run: () => Promise<Measure>): Promise<Measure[]> {
  await run();
  const list: Measure[] = [];
  for (let i = 0; i < RUNS; i += 1) {
    list.push(await run());
  }
  return list;
}
// the floor: one full decode of the video to RGB pixels (as every whole-video reader needs),
// thrown away, with the ffmpeg the CLI would use
const videoName = fs.readdirSync(FIXTURE_DIR).find((name) => name.endsWith('.mp4'));
if (!videoName) {
  throw new Error(`no .mp4 in ${FIXTURE_DIR}`);
}
const ffmpegBinary = await resolveFfmpeg();
const fullDecode = () =>
  timed(
    [
      ...[ffmpegBinary.path, '-v', 'error', '-nostdin', '-i', path.join(FIXTURE_DIR, videoName)],
      ...['-map', '0:v:0', '-pix_fmt', 'rgb24', '-f', 'null', '-'],
    ],
    { cwd: work },
  );
// ours and the decode alternate, so a shared machine's load weighs on both alike
const oursRuns: Measure[] = [];
const decodeRuns: Measure[] = [];
await ours();
await fullDecode();
for (let i = 0; i < RUNS; i += 1) {
  oursRuns.push(await ours());
  decodeRuns.push(await fullDecode());
}
runs('cua-annotator (import + export)', oursRuns);
const oursMedian = summarise(oursRuns);
runs('full ffmpeg decode to RGB', decodeRuns);
const decode = summarise(decodeRuns);
console.log(
  `  ours / full decode: ${(oursMedian.wallS / decode.wallS).toFixed(2)}x wall, ` +
    `${(oursMedian.cpuS / decode.cpuS).toFixed(2)}x CPU (aim: <= 0.5x wall)`,
);
if (OPENCUA) {
  const opencua = openCuaRunner(path.resolve(OPENCUA));
  const openRuns = await repeat(opencua.run);
  runs(`OpenCUA extract_raw.py${opencua.note ? ' *' : ''}`, openRuns);
  const o = summarise(openRuns);
  console.log(
    `  ratio: ${(o.wallS / oursMedian.wallS).toFixed(1)}x faster (wall), ` +
      `${(o.cpuS / oursMedian.cpuS).toFixed(1)}x less CPU, peak ${(
        oursMedian.peakMiB / o.peakMiB
      ).toFixed(2)}x OpenCUA's (aim: >= 10x faster, <= 1x peak)`,
  );
  if (opencua.note) {
    console.log(`  *${opencua.note}`);
  }
} else {
  console.log(
    '  OpenCUA extract_raw.py: skipped (set OPENCUA_DATA_PROCESS to its data/data-process folder)',
  );
}
fs.rmSync(work, { recursive: true, force: true });

function runs(name: string, list: Measure[]): void {
  console.log(row(name, summarise(list)));
  console.log(
    `    runs: ${list.map((m) => `${m.wallS.toFixed(2)} s/${m.cpuS.toFixed(2)} s/${m.peakMiB.toFixed(0)} MiB`).join(', ')}`,
  );
}
