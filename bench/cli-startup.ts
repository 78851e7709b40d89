// Benchmark: CLI start-up. Wall time of `cua-annotator list --json` on a one-recording library
// (the example recording imported into a temp library) against the floor of any command that
// reads the library: a bare Node script that opens the same library.sqlite with better-sqlite3,
// selects the recordings' rows and prints them as JSON. All under this Node (process.execPath),
// interleaved, median of BENCH_RUNS runs each. Rows with NODE_DISABLE_COMPILE_CACHE=1 show what
// Node's module compile cache (enabled by bin/cua-annotator.mjs) brings.
// Aim (issues 11, 31): bin/cua-annotator.mjs list --json within 2× of the floor.
// usage: npm run build:node && npx tsx bench/cli-startup.ts   (BENCH_RUNS, default 15)
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fixturePath } from '../tests/helpers/fixture';

const RUNS = Number(process.env.BENCH_RUNS ?? 15);
const REPO_ROOT = path.resolve(import.meta.dirname, '..');
const BUILT_CLI = path.join(REPO_ROOT, 'out', 'node', 'cli.js');
const BIN = path.join(REPO_ROOT, 'bin', 'cua-annotator.mjs');

if (!fs.existsSync(BUILT_CLI)) {
  console.error(`${BUILT_CLI} is missing: run \`npm run build:node\` first`);
  process.exit(1);
}

const env = { ...process.env };
delete env.CUA_ANNOTATOR_FROM_SOURCE;

/** CPU time (user + system) of this process's waited-for children, ms (Linux /proc; else 0). */
function childrenCpuMs(): number {
  try {
    // fields after the ")" of the command name: cutime and cstime are the 14th and 15th
    const fields = fs.readFileSync('/proc/self/stat', 'utf8').split(') ')[1]!.split(' ');
    return ((Number(fields[13]) + Number(fields[14])) * 1000) / CLOCK_TICKS_PER_S;
  } catch {
    return 0;
  }
}
/** USER_HZ of Linux /proc times (100 on every mainstream build). */
const CLOCK_TICKS_PER_S = 100;

type Sample = { wallMs: number; cpuMs: number };

// Runs one command to completion and returns its wall and CPU time; fails on a non-zero exit.
function timeRun(args: string[], extraEnv: NodeJS.ProcessEnv = {}): Sample {
  const cpuBefore = childrenCpuMs();
  const start = process.hrtime.bigint();
  const r = spawnSync(process.execPath, args, {
    env: { ...env, ...extraEnv },
    // the floor's require('better-sqlite3') resolves from the project's node_modules
    cwd: REPO_ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const wallMs = Number(process.hrtime.bigint() - start) / 1e6;
  if (r.status !== 0) {
    throw new Error(`${args.join(' ')} exited ${r.status}: ${r.stderr.toString()}`);
  }
  return { wallMs, cpuMs: childrenCpuMs() - cpuBefore };
}

/** The floor: open the library file read-only, select the rows `list` shows, print them. */
const FLOOR_SCRIPT =
  "const db = new (require('better-sqlite3'))(process.argv[1], { readonly: true });" +
  "process.stdout.write(JSON.stringify(db.prepare('SELECT * FROM recordings ORDER BY seq DESC').all()));";

const library = fs.mkdtempSync(path.join(os.tmpdir(), 'cua-bench-startup-'));
try {
  timeRun([
    BUILT_CLI,
    'import',
    fixturePath('agentnet-raw/win10-display-settings'),
    '--library',
    library,
  ]);
  const list = ['list', '--json', '--library', library];
  const rows: { name: string; args: string[]; env?: NodeJS.ProcessEnv; times: Sample[] }[] = [
    {
      name: 'floor: node + better-sqlite3, same file, SELECT',
      args: ['-e', FLOOR_SCRIPT, path.join(library, 'library.sqlite')],
      times: [],
    },
    { name: 'bin/cua-annotator.mjs list --json', args: [BIN, ...list], times: [] },
    {
      name: '  … without the compile cache',
      args: [BIN, ...list],
      env: { NODE_DISABLE_COMPILE_CACHE: '1' },
      times: [],
    },
    { name: 'node out/node/cli.js list --json', args: [BUILT_CLI, ...list], times: [] },
    {
      name: 'sources through tsx (CUA_ANNOTATOR_FROM_SOURCE=1)',
      args: [BIN, ...list],
      env: { CUA_ANNOTATOR_FROM_SOURCE: '1' },
      times: [],
    },
  ];
  // one warm-up each (OS file cache), then interleaved runs so load changes hit every row alike
  for (const row of rows) {
    timeRun(row.args, row.env);
  }
  for (let i = 0; i < RUNS; i += 1) {
    for (const row of rows) {
      row.times.push(timeRun(row.args, row.env));
    }
  }
  const median = (xs: number[]) => {
    const sorted = [...xs].sort((a, b) => a - b);
    const mid = Math.floor(sorted.length / 2);
    return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
  };
  const wall = (row: (typeof rows)[number]) => median(row.times.map((t) => t.wallMs));
  const cpu = (row: (typeof rows)[number]) => median(row.times.map((t) => t.cpuMs));
  const floor = rows[0]!;
  console.log(
    `CLI start-up, Node ${process.version}, median of ${RUNS} runs each ` +
      `(${os.cpus().length} CPUs, load ${os.loadavg()[0]!.toFixed(2)})`,
  );
  console.log(`  ${'command'.padEnd(52)}  wall ms  ratio   CPU ms  ratio`);
  for (const row of rows) {
    console.log(
      `  ${row.name.padEnd(52)} ${wall(row).toFixed(0).padStart(8)} ${(wall(row) / wall(floor)).toFixed(2).padStart(5)}× ` +
        `${cpu(row).toFixed(0).padStart(8)} ${(cpu(row) / cpu(floor)).toFixed(2).padStart(5)}×`,
    );
  }
  const built = rows[1]!;
  console.log(
    `ratio bin/cua-annotator.mjs list --json / floor: wall ${(wall(built) / wall(floor)).toFixed(2)}×, ` +
      `CPU ${(cpu(built) / cpu(floor)).toFixed(2)}× (aim ≤ 2×)`,
  );
} finally {
  fs.rmSync(library, { recursive: true, force: true });
}
