// Whole-recorder benchmark on a private Xvfb desktop (1280×800, 30 fps, synthetic activity):
// BENCH_RUNS rounds (default 5), each of ffmpeg alone with the recorder's arguments, the recorder
// with accessibility (AT-SPI) on, the recorder with --no-a11y, and the recorder with AT-SPI on and
// uiohook-napi as its input hook instead of the X RECORD hook (CUA_INPUT_HOOK=uiohook, the
// baseline of that change), over the same scripted activity.
// Per round: CPU of every recorder process (the CLI, the input-hook child, ffmpeg, X helpers)
// divided by CPU of ffmpeg alone in that round, with each process's wake-ups a second (voluntary
// context switches of all its threads: on this VM a wake-up costs about 160 µs of CPU); frames
// vs. the wall duration; completeness of a 5,000-move burst; stamp error of injected input; video
// and database MB per minute. Prints the median ratio of the rounds for accessibility on and off
// (issue 13 item 8: aim ≤ 1.15 with it on).
// usage: npx tsx bench/recorder.ts   (BENCH_SECONDS per phase, default 20; BENCH_RUNS, default 5;
//   BENCH_CLI: the CLI entry, default bin/cua-annotator.mjs, i.e. the build in out/node;
//   BENCH_RECORD_ARGS: extra `record` arguments; BENCH_NODE_ARGS: node flags of the recorder,
//   e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof`; BENCH_PHASES: which recorder phases to run,
//   comma-separated from on,off,uiohook, default all three)
import { openDatabase } from '../src/store';
import { POINTER_ACTIVITY } from './activity';
import { threadsUsage } from './proc-usage';
import { type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { buildCaptureArgs } from '../src/recorder/screen/ffmpeg-args';
import { startDesktop, type Desktop } from '../tests/helpers/desktop';
import { launchGtkForm } from '../tests/fixtures/apps/gtk-form';
import { REPO_ROOT } from '../tests/helpers/paths';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 20);
const FPS = 30;
const TICK = 100; // USER_HZ on Linux
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const now = () => Number(process.hrtime.bigint()) / 1e6;

type Usage = { cpu: number; wakes: number };

/**
 * utime+stime (s) and wake-ups of `root` and all its live descendants, with a per-command
 * breakdown.
 */
function treeCpu(root: number): Map<string, Usage> {
  const children = new Map<number, number[]>();
  const cpu = new Map<number, number>();
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) {
      continue;
    }
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      const ppid = Number(fields[1]);
      cpu.set(Number(entry), (Number(fields[11]) + Number(fields[12])) / TICK);
      children.set(ppid, [...(children.get(ppid) ?? []), Number(entry)]);
    } catch {
      // the process ended while we read
    }
  }
  const out = new Map<string, Usage>();
  const stack = [root];
  while (stack.length) {
    const pid = stack.pop()!;
    let name = String(pid);
    try {
      const cmd = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean);
      name = `${pid} ${path.basename(cmd[0] ?? '')} ${cmd
        .slice(1)
        .map((a) => path.basename(a))
        .join(' ')
        .slice(0, 40)}`;
    } catch {
      // gone
    }
    out.set(name, { cpu: cpu.get(pid) ?? 0, wakes: threadsUsage(pid).wakes });
    stack.push(...(children.get(pid) ?? []));
  }
  return out;
}

function treeCpuSeconds(root: number): number {
  return [...treeCpu(root).values()].reduce((a, b) => a + b.cpu, 0);
}

/** Pause between the activity's moves, s: about 50 moves a second. */
const ACTIVITY_PAUSE_S = '0.02';

const INJECT = `
import json, sys, time
from Xlib import display, X
from Xlib.ext import xtest
d = display.Display(); pts = json.loads(sys.argv[1]); gap = float(sys.argv[2]); out = []
for x, y in pts:
    t = time.clock_gettime(time.CLOCK_MONOTONIC) * 1000
    xtest.fake_input(d, X.MotionNotify, x=x, y=y); d.sync(); out.append(t)
    if gap > 0: time.sleep(gap / 1000)
print(json.dumps(out))
`;

function python(desktop: Desktop, code: string, args: string[]): ChildProcess {
  return desktop.spawn('/usr/bin/python3', ['-c', code, ...args]);
}

async function inject(
  desktop: Desktop,
  points: [number, number][],
  gapMs: number,
): Promise<number[]> {
  const child = python(desktop, INJECT, [JSON.stringify(points), String(gapMs)]);
  let out = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  await new Promise((r) => child.once('close', r));
  return JSON.parse(out) as number[];
}

const pct = (xs: number[], p: number) =>
  [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))]!;

async function ffmpegAlone(
  desktop: Desktop,
  dir: string,
): Promise<{ cpu: number; seconds: number }> {
  const args = buildCaptureArgs({
    source: { kind: 'x11grab', display: desktop.display },
    // a new file per round: ffmpeg refuses to overwrite one and would exit at once
    outputPath: path.join(fs.mkdtempSync(path.join(dir, 'alone-')), 'alone.mp4'),
    fps: FPS,
  });
  const child = desktop.spawn('ffmpeg', args, { stdio: ['pipe', 'ignore', 'ignore'] });
  const closed = new Promise((r) => child.once('close', r));
  await sleep(2000);
  if (child.exitCode !== null) {
    throw new Error(`ffmpeg alone exited at once (code ${child.exitCode})`);
  }
  const activity = python(desktop, POINTER_ACTIVITY, [String(SECONDS), ACTIVITY_PAUSE_S]);
  const c0 = treeCpuSeconds(child.pid!);
  const t0 = now();
  await new Promise((r) => activity.once('close', r));
  const c1 = treeCpuSeconds(child.pid!);
  const t1 = now();
  child.stdin!.end('q');
  await closed;
  return { cpu: c1 - c0, seconds: (t1 - t0) / 1000 };
}

type RecorderRun = {
  /** CPU of the recorder's process tree while the activity ran, share of one core. */
  share: number;
  /** Per process: share of one core. */
  perProcess: [string, Usage][];
  frames: number;
  wallFrames: number;
  events: number;
  burstStored: number;
  stampP50: number;
  stampP99: number;
  pacedStored: number;
  /** Window snapshots and element records stored (accessibility on). */
  snapshots: number;
  elements: number;
  videoMbPerMin: number;
  dbMbPerMin: number;
};

async function recorderRun(
  desktop: Desktop,
  dir: string,
  extraArgs: string[],
  env: NodeJS.ProcessEnv = {},
): Promise<RecorderRun> {
  const lib = fs.mkdtempSync(path.join(dir, 'lib-'));
  const cli = process.env.BENCH_CLI ?? path.join(REPO_ROOT, 'bin', 'cua-annotator.mjs');
  const rec = desktop.spawn(
    process.execPath,
    [
      ...(process.env.BENCH_NODE_ARGS ?? '').split(' ').filter(Boolean),
      cli,
      'record',
      '--task',
      'bench',
      '--library',
      lib,
      '--fps',
      String(FPS),
      '--json',
      ...extraArgs,
      ...(process.env.BENCH_RECORD_ARGS ?? '').split(' ').filter(Boolean),
    ],
    { stdio: ['ignore', 'pipe', 'pipe'], env },
  );
  let stdout = '';
  let stderr = '';
  rec.stdout!.on('data', (d: Buffer) => (stdout += d.toString()));
  rec.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  while (!/recording [0-9a-f-]{36}/.test(stderr)) {
    if (rec.exitCode !== null) {
      throw new Error(stderr);
    }
    await sleep(50);
  }
  const startedAt = now();
  await sleep(2000);
  const activity = python(desktop, POINTER_ACTIVITY, [String(SECONDS), ACTIVITY_PAUSE_S]);
  const b0 = treeCpu(rec.pid!);
  const c0 = [...b0.values()].reduce((a, b) => a + b.cpu, 0);
  const t0 = now();
  await new Promise((r) => activity.once('close', r));
  const b1 = treeCpu(rec.pid!);
  const c1 = [...b1.values()].reduce((a, b) => a + b.cpu, 0);
  const t1 = now();
  // input: 200 paced moves for the stamp error, then a 5,000-move burst for completeness
  const paced: [number, number][] = Array.from({ length: 200 }, (_, i) => [3 + i, 777]);
  const pacedStamps = await inject(desktop, paced, 10);
  const burst: [number, number][] = Array.from({ length: 5000 }, (_, i) => [
    5 + (i % 1200),
    5 + Math.floor(i / 1200),
  ]);
  await inject(desktop, burst, 0);
  await sleep(1000);
  const stopAt = now();
  rec.kill('SIGINT');
  await new Promise((r) => rec.once('close', r));
  const summary = JSON.parse(stdout) as { events: number };

  const db = openDatabase(path.join(lib, 'library.sqlite'), { readonly: true });
  const moves = db.prepare(`SELECT x, y, t_ms FROM events WHERE kind = 0 ORDER BY idx`).all() as {
    x: number;
    y: number;
    t_ms: number;
  }[];
  const video = db.prepare(`SELECT size_bytes, frame_count, start_ms FROM videos`).get() as {
    size_bytes: number;
    frame_count: number;
    start_ms: number;
  };
  const axCount = (kind: string): number =>
    (
      db.prepare(`SELECT count(*) AS n FROM ax_records WHERE kind = ?`).get(kind) as {
        n: number;
      }
    ).n;
  const snapshots = axCount('window');
  const elements = axCount('element');
  db.close();
  const pacedRows = moves.filter((m) => m.y === 777 && m.x >= 3 && m.x < 203);
  const stampErr = pacedRows.map((m) => m.t_ms - pacedStamps[m.x - 3]!);
  const burstSet = new Set(burst.map(([x, y]) => `${x},${y}`));
  const burstSeen = new Set(moves.filter((m) => m.y <= 9).map((m) => `${m.x},${m.y}`));
  const wallS = (stopAt - video.start_ms) / 1000;
  const dbBytes = fs
    .readdirSync(lib)
    .filter((f) => f.startsWith('library.sqlite'))
    .reduce((n, f) => n + fs.statSync(path.join(lib, f)).size, 0);
  const minutes = (stopAt - startedAt) / 60000;
  const seconds = (t1 - t0) / 1000;
  fs.rmSync(lib, { recursive: true, force: true });
  return {
    share: (c1 - c0) / seconds,
    perProcess: [...b1].map(([name, v]) => [
      name,
      {
        cpu: (v.cpu - (b0.get(name)?.cpu ?? 0)) / seconds,
        wakes: (v.wakes - (b0.get(name)?.wakes ?? 0)) / seconds,
      },
    ]),
    frames: video.frame_count,
    wallFrames: wallS * FPS,
    events: summary.events,
    burstStored: [...burstSet].filter((k) => burstSeen.has(k)).length,
    stampP50: pct(stampErr, 50),
    stampP99: pct(stampErr, 99),
    pacedStored: pacedRows.length,
    snapshots,
    elements,
    videoMbPerMin: video.size_bytes / 1e6 / minutes,
    dbMbPerMin: dbBytes / 1e6 / minutes,
  };
}

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 === 1 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
};
const pc = (share: number): string => `${(share * 100).toFixed(1)} %`;

function describeRun(label: string, run: RecorderRun, alone: number): void {
  console.log(
    `  ${label}: ${pc(run.share)} of a core, ratio ${(run.share / alone).toFixed(3)}; frames ${run.frames} vs ${run.wallFrames.toFixed(0)} wall; events ${run.events}; burst ${run.burstStored}/5000; stamp p50 ${run.stampP50.toFixed(2)} ms p99 ${run.stampP99.toFixed(2)} ms (${run.pacedStored}/200); snapshots ${run.snapshots}, elements ${run.elements}; video ${run.videoMbPerMin.toFixed(2)} MB/min, db ${run.dbMbPerMin.toFixed(2)} MB/min`,
  );
  for (const [name, use] of run.perProcess) {
    console.log(
      `      ${(use.cpu * 100).toFixed(1).padStart(5)} %  ${use.wakes.toFixed(0).padStart(4)} wake-ups/s  ${name}`,
    );
  }
}

async function main(): Promise<void> {
  const runs = Math.max(1, Number(process.env.BENCH_RUNS ?? 5));
  const phases = new Set((process.env.BENCH_PHASES ?? 'on,off,uiohook').split(','));
  const desktop = await startDesktop();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cua-bench-rec-'));
  const load0 = os.loadavg();
  console.log(
    `recorder benchmark: 1280×800 @ ${FPS} fps, ${SECONDS} s of synthetic activity per phase (moves at 50 Hz, a key every 0.5 s), ${runs} rounds of ffmpeg alone / ${[
      ['on', 'recorder with AT-SPI'],
      ['off', 'recorder --no-a11y'],
      ['uiohook', 'recorder with AT-SPI and uiohook-napi'],
    ]
      .filter(([phase]) => phases.has(phase!))
      .map(([, label]) => label)
      .join(' / ')}`,
  );
  const ratiosOn: number[] = [];
  const ratiosOff: number[] = [];
  const ratiosUiohook: number[] = [];
  const alones: number[] = [];
  try {
    await launchGtkForm(desktop);
    for (let round = 1; round <= runs; round += 1) {
      const alone = await ffmpegAlone(desktop, dir);
      const aloneShare = alone.cpu / alone.seconds;
      alones.push(aloneShare);
      console.log(
        `round ${round}: ffmpeg alone ${pc(aloneShare)} of a core (load ${os.loadavg()[0]!.toFixed(2)})`,
      );
      if (phases.has('on')) {
        const on = await recorderRun(desktop, dir, []);
        ratiosOn.push(on.share / aloneShare);
        describeRun('AT-SPI on ', on, aloneShare);
      }
      if (phases.has('off')) {
        const off = await recorderRun(desktop, dir, ['--no-a11y']);
        ratiosOff.push(off.share / aloneShare);
        describeRun('--no-a11y ', off, aloneShare);
      }
      if (phases.has('uiohook')) {
        const uiohook = await recorderRun(desktop, dir, [], { CUA_INPUT_HOOK: 'uiohook' });
        ratiosUiohook.push(uiohook.share / aloneShare);
        describeRun('uiohook   ', uiohook, aloneShare);
      }
    }
  } finally {
    await desktop.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
  const load1 = os.loadavg();
  const list = (xs: number[]): string => xs.map((x) => x.toFixed(3)).join(', ');
  console.log(`ffmpeg alone, median: ${pc(median(alones))} of a core`);
  const report = (label: string, xs: number[], aim = ''): void => {
    if (xs.length > 0) {
      console.log(
        `ratio recorder / ffmpeg alone, ${label}  median ${median(xs).toFixed(3)}  (${list(xs)})${aim}`,
      );
    }
  };
  report('AT-SPI on: ', ratiosOn, '  aim ≤ 1.15');
  report('--no-a11y: ', ratiosOff);
  report('AT-SPI on, uiohook-napi hook: ', ratiosUiohook);
  console.log(
    `load average (1/5/15 min) before ${load0.map((l) => l.toFixed(2)).join('/')}, after ${load1.map((l) => l.toFixed(2)).join('/')}; ${os.cpus().length} cores`,
  );
}

await main();
