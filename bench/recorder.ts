// Whole-recorder benchmark on a private Xvfb desktop (1280×800, 30 fps) with the GTK test form
// (tests/fixtures/apps/gtk-form.py): BENCH_RUNS rounds (default 5), each of ffmpeg alone with the
// recorder's arguments, the recorder with accessibility (AT-SPI) on, the recorder with --no-a11y,
// and the recorder with AT-SPI on and uiohook-napi as its input hook instead of the X RECORD hook
// (CUA_INPUT_HOOK=uiohook, the baseline of that change), over the same scripted activity: the
// pointer glides to the form's accessible widgets in turn (the button, the name entry, a list row,
// the password entry, another row), rests, clicks, and types into the entries (bench/activity.ts
// CLICK_ACTIVITY, about 1.5 clicks a second), so the recorder looks up the element under every
// click and under every rest and takes window snapshots as it does for an annotator (issue 31
// item 5: the pointer-only activity before it stored no element at all).
// Per round: CPU of every recorder process (the CLI, the input-hook child, ffmpeg, X helpers)
// divided by CPU of ffmpeg alone in that round, with each process's wake-ups a second (voluntary
// context switches of all its threads: on this VM a wake-up costs about 160 µs of CPU); the
// accessibility work stored (element records per click, window snapshots, their size); the CPU
// the desktop spent answering (the form, the AT-SPI bus and registry, the session bus, Xvfb),
// which the recorder's own ratio leaves out; frames vs. the wall duration; completeness of a
// 5,000-move burst; stamp error of injected input; video and database MB per minute. A round
// with AT-SPI on that stores no element record, or whose activity clicked less than once a
// second, fails the benchmark. Prints the median ratio of the rounds for accessibility on and
// off (issue 13 item 8, issue 31 item 5: aim ≤ 1.15 with it on).
// usage: npx tsx bench/recorder.ts [--json]   (--json: one JSON object on stdout, the log on
//   stderr; BENCH_SECONDS per phase, default 20; BENCH_RUNS, default 5;
//   BENCH_CLI: the CLI entry, default bin/cua-annotator.mjs, i.e. the build in out/node;
//   BENCH_RECORD_ARGS: extra `record` arguments; BENCH_NODE_ARGS: node flags of the recorder,
//   e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof`; BENCH_PHASES: which recorder phases to run,
//   comma-separated from on,off,uiohook, default all three; BENCH_BASELINE_CLI: another build's
//   CLI entry, e.g. of the commit before a change, run with AT-SPI on as one more phase of every
//   round, so both builds meet the same load)
import { openDatabase } from '../src/store';
import { RAW_EVENT_KINDS } from '../src/shared/domain';
import { CLICK_ACTIVITY } from './activity';
import { threadsUsage } from './proc-usage';
import { type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { buildCaptureArgs } from '../src/recorder/screen/ffmpeg-args';
import { startDesktop, type Desktop } from '../tests/helpers/desktop';
import { launchGtkForm, type GtkForm } from '../tests/fixtures/apps/gtk-form';
import { REPO_ROOT } from '../tests/helpers/paths';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 20);
const FPS = 30;
const TICK = 100; // USER_HZ on Linux
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const now = () => Number(process.hrtime.bigint()) / 1e6;

type Usage = { cpu: number; wakes: number };

/**
 * CPU (s) and wake-ups of `root` and all its live descendants, with a per-command breakdown. A
 * process's CPU includes that of its children that ended and were waited for (cutime + cstime):
 * the short commands a recorder runs per click (xdotool, xwininfo, xprop) live between two
 * readings and would otherwise count for nothing; a child read alive at the first reading and
 * reaped before the second counts once (its own time, then its parent's cutime).
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
      const [utime, stime, cutime, cstime] = fields.slice(11, 15).map(Number);
      cpu.set(Number(entry), (utime! + stime! + cutime! + cstime!) / TICK);
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

/** Gap between the activity's moves, s: 50 moves a second while the pointer glides. */
const ACTIVITY_GAP_S = 0.02;
/** The pointer's rest on a widget before the click, s: beyond the recorder's hover delay
 * (src/recorder/session/accessibility-track.ts: 240 ms), as an annotator's aim before a click. */
const ACTIVITY_REST_S = 0.3;
/** Fewest clicks a second the activity must make for a round to count (issue 31 item 5). */
const MIN_CLICKS_PER_S = 1;
/** The recorder's CPU with AT-SPI on over ffmpeg's alone, median of the rounds (issue 31). */
const AIM_RATIO = 1.15;

/** What the clicking activity did. */
type ActivityCounts = { moves: number; clicks: number; keys: number; seconds: number };

/** A click target of the activity, screen px; `isText` types into it after the click. */
type ClickTarget = { x: number; y: number; isText: boolean };

// The form's accessible widgets in the order the activity visits them: the button, the name entry,
// a row near the top of the list, the password entry, a row lower down.
function formTargets(form: GtkForm): ClickTarget[] {
  const w = form.ready.widgets;
  return [
    { x: w.button.cx, y: w.button.cy, isText: false },
    { x: w.entry.cx, y: w.entry.cy, isText: true },
    { x: w.list.cx, y: w.list.y + 12, isText: false },
    { x: w.password.cx, y: w.password.cy, isText: true },
    { x: w.list.cx, y: w.list.y + 70, isText: false },
  ];
}

// Starts the clicking activity; `done` resolves with its counts when its SECONDS are over.
function startActivity(
  desktop: Desktop,
  targets: ClickTarget[],
): { done: Promise<ActivityCounts> } {
  const child = python(desktop, CLICK_ACTIVITY, [
    String(SECONDS),
    JSON.stringify(targets),
    String(ACTIVITY_GAP_S),
    String(ACTIVITY_REST_S),
  ]);
  let out = '';
  let err = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (err += d.toString()));
  const done = new Promise<ActivityCounts>((resolve, reject) => {
    child.once('close', (code) => {
      if (code === 0) {
        resolve(JSON.parse(out) as ActivityCounts);
      } else {
        reject(new Error(`the clicking activity exited with ${code}: ${err}`));
      }
    });
  });
  return { done };
}

/** The desktop processes that answer the recorder's accessibility and capture requests. */
type DesktopSide = { form: number; atspi: number; sessionBus: number; xvfb: number };

function readPidFile(desktop: Desktop, name: string): number {
  return Number(fs.readFileSync(path.join(desktop.runDir, `${name}.pid`), 'utf8').trim());
}

function desktopSide(desktop: Desktop, form: GtkForm): DesktopSide {
  return {
    form: form.child.pid!,
    atspi: readPidFile(desktop, 'atspi'),
    sessionBus: readPidFile(desktop, 'dbus'),
    xvfb: readPidFile(desktop, 'xvfb'),
  };
}

/** CPU seconds of each desktop part, with its descendants (the AT-SPI bus launcher starts the
 * accessibility bus, which starts the registry). */
function desktopCpu(side: DesktopSide): Record<keyof DesktopSide, number> {
  return {
    form: treeCpuSeconds(side.form),
    atspi: treeCpuSeconds(side.atspi),
    sessionBus: treeCpuSeconds(side.sessionBus),
    xvfb: treeCpuSeconds(side.xvfb),
  };
}

/** Share of a core of each desktop part between two readings. */
function desktopShare(
  c0: Record<keyof DesktopSide, number>,
  c1: Record<keyof DesktopSide, number>,
  seconds: number,
): Record<keyof DesktopSide, number> {
  return {
    form: (c1.form - c0.form) / seconds,
    atspi: (c1.atspi - c0.atspi) / seconds,
    sessionBus: (c1.sessionBus - c0.sessionBus) / seconds,
    xvfb: (c1.xvfb - c0.xvfb) / seconds,
  };
}

const sumShares = (s: Record<keyof DesktopSide, number>): number =>
  s.form + s.atspi + s.sessionBus + s.xvfb;

/** The activity's pace, checked for every phase: a slower activity measures less than asked. */
function checkPace(label: string, counts: ActivityCounts): void {
  const perS = counts.clicks / counts.seconds;
  if (perS < MIN_CLICKS_PER_S) {
    throw new Error(
      `${label}: the activity clicked ${perS.toFixed(2)} times a second (${counts.clicks} in ${counts.seconds.toFixed(1)} s), below ${MIN_CLICKS_PER_S}: the machine is too loaded for this round to count`,
    );
  }
}

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

type AloneRun = {
  /** CPU of ffmpeg while the activity ran, share of one core. */
  share: number;
  /** Share of one core of each desktop part meanwhile. */
  desktop: Record<keyof DesktopSide, number>;
  activity: ActivityCounts;
};

async function ffmpegAlone(
  desktop: Desktop,
  dir: string,
  form: GtkForm,
  targets: ClickTarget[],
): Promise<AloneRun> {
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
  const side = desktopSide(desktop, form);
  const activity = startActivity(desktop, targets);
  const c0 = treeCpuSeconds(child.pid!);
  const d0 = desktopCpu(side);
  const t0 = now();
  const counts = await activity.done;
  const c1 = treeCpuSeconds(child.pid!);
  const d1 = desktopCpu(side);
  const t1 = now();
  child.stdin!.end('q');
  await closed;
  checkPace('ffmpeg alone', counts);
  const seconds = (t1 - t0) / 1000;
  return { share: (c1 - c0) / seconds, desktop: desktopShare(d0, d1, seconds), activity: counts };
}

type RecorderRun = {
  /** CPU of the recorder's process tree while the activity ran, share of one core. */
  share: number;
  /** Per process: share of one core. */
  perProcess: [string, Usage][];
  /** Share of one core of each desktop part meanwhile. */
  desktop: Record<keyof DesktopSide, number>;
  activity: ActivityCounts;
  frames: number;
  wallFrames: number;
  events: number;
  /** Button presses and key presses stored. */
  clicksStored: number;
  keysStored: number;
  burstStored: number;
  stampP50: number;
  stampP99: number;
  pacedStored: number;
  /** Window snapshots and element records stored (accessibility on). */
  snapshots: number;
  elements: number;
  /** Mean nodes and JSON bytes of a stored window snapshot; mean JSON bytes of an element. */
  snapshotNodes: number;
  snapshotBytes: number;
  elementBytes: number;
  videoMbPerMin: number;
  dbMbPerMin: number;
};

async function recorderRun(
  desktop: Desktop,
  dir: string,
  form: GtkForm,
  targets: ClickTarget[],
  extraArgs: string[],
  env: NodeJS.ProcessEnv = {},
  cli = DEFAULT_CLI,
): Promise<RecorderRun> {
  const lib = fs.mkdtempSync(path.join(dir, 'lib-'));
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
  const side = desktopSide(desktop, form);
  const activity = startActivity(desktop, targets);
  const b0 = treeCpu(rec.pid!);
  const c0 = [...b0.values()].reduce((a, b) => a + b.cpu, 0);
  const d0 = desktopCpu(side);
  const t0 = now();
  const counts = await activity.done;
  const b1 = treeCpu(rec.pid!);
  const c1 = [...b1.values()].reduce((a, b) => a + b.cpu, 0);
  const d1 = desktopCpu(side);
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
  const axSize = (kind: string): { nodes: number; bytes: number } =>
    db
      .prepare(
        `SELECT coalesce(avg(node_count), 0) AS nodes, coalesce(avg(length(tree_json)), 0) AS bytes
           FROM ax_records WHERE kind = ?`,
      )
      .get(kind) as { nodes: number; bytes: number };
  const snapshotSize = axSize('window');
  const elementSize = axSize('element');
  const eventCount = (kind: number): number =>
    (db.prepare(`SELECT count(*) AS n FROM events WHERE kind = ?`).get(kind) as { n: number }).n;
  // codes of src/shared/domain/raw-event.ts RAW_EVENT_KINDS as stored (src/store/queries/events.ts)
  const clicksStored = eventCount(RAW_EVENT_KINDS.indexOf('down'));
  const keysStored = eventCount(RAW_EVENT_KINDS.indexOf('keydown'));
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
    desktop: desktopShare(d0, d1, seconds),
    activity: counts,
    clicksStored,
    keysStored,
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
    snapshotNodes: snapshotSize.nodes,
    snapshotBytes: snapshotSize.bytes,
    elementBytes: elementSize.bytes,
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

/** --json: the report as one JSON object on stdout, the log on stderr. */
const IS_JSON = process.argv.includes('--json');
const log = (line: string): void => {
  if (IS_JSON) {
    process.stderr.write(`${line}\n`);
  } else {
    console.log(line);
  }
};
const load1m = (): number => os.loadavg()[0]!;

/** The recorder's CPU with the desktop's answering CPU, over ffmpeg's with the desktop's. */
const systemRatio = (run: RecorderRun, alone: AloneRun): number =>
  (run.share + sumShares(run.desktop)) / (alone.share + sumShares(alone.desktop));

const describeDesktop = (d: Record<keyof DesktopSide, number>): string =>
  `desktop: form ${pc(d.form)}, AT-SPI bus+registry ${pc(d.atspi)}, session bus ${pc(d.sessionBus)}, Xvfb ${pc(d.xvfb)}`;

const describeActivity = (a: ActivityCounts): string =>
  `${a.clicks} clicks (${(a.clicks / a.seconds).toFixed(2)}/s), ${a.keys} keys, ${a.moves} moves in ${a.seconds.toFixed(1)} s`;

function describeRun(label: string, run: RecorderRun, alone: AloneRun): void {
  log(
    `  ${label}: ${pc(run.share)} of a core, ratio ${(run.share / alone.share).toFixed(3)} (with the desktop's share ${systemRatio(run, alone).toFixed(3)}); load ${load1m().toFixed(2)}; activity ${describeActivity(run.activity)}`,
  );
  log(
    `      lookups stored: ${run.elements} element records for ${run.clicksStored} clicks stored, ${run.snapshots} window snapshots (mean ${run.snapshotNodes.toFixed(0)} nodes, ${(run.snapshotBytes / 1024).toFixed(1)} KiB; elements ${(run.elementBytes / 1024).toFixed(1)} KiB); ${run.keysStored} key presses; ${describeDesktop(run.desktop)}`,
  );
  log(
    `      frames ${run.frames} vs ${run.wallFrames.toFixed(0)} wall; events ${run.events}; burst ${run.burstStored}/5000; stamp p50 ${run.stampP50.toFixed(2)} ms p99 ${run.stampP99.toFixed(2)} ms (${run.pacedStored}/200); video ${run.videoMbPerMin.toFixed(2)} MB/min, db ${run.dbMbPerMin.toFixed(2)} MB/min`,
  );
  for (const [name, use] of run.perProcess) {
    log(
      `      ${(use.cpu * 100).toFixed(1).padStart(5)} %  ${use.wakes.toFixed(0).padStart(4)} wake-ups/s  ${name}`,
    );
  }
}

/** The CLI entry the recorder phases run. */
const DEFAULT_CLI = process.env.BENCH_CLI ?? path.join(REPO_ROOT, 'bin', 'cua-annotator.mjs');

/** The recorder phases: `record` arguments, environment and CLI entry. */
const PHASES = [
  { phase: 'on', label: 'AT-SPI on ', title: 'recorder with AT-SPI', args: [], env: {} },
  {
    phase: 'baseline',
    label: 'baseline  ',
    title: 'baseline CLI with AT-SPI',
    args: [],
    env: {},
    cli: process.env.BENCH_BASELINE_CLI,
  },
  { phase: 'off', label: '--no-a11y ', title: 'recorder --no-a11y', args: ['--no-a11y'], env: {} },
  {
    phase: 'uiohook',
    label: 'uiohook   ',
    title: 'recorder with AT-SPI and uiohook-napi',
    args: [],
    env: { CUA_INPUT_HOOK: 'uiohook' },
  },
] as const;
type Phase = (typeof PHASES)[number]['phase'];

/** One round as reported by --json. */
type RoundReport = {
  round: number;
  alone: AloneRun & { load1m: number };
  recorder: Partial<
    Record<
      Phase,
      Omit<RecorderRun, 'perProcess'> & { ratio: number; systemRatio: number; load1m: number }
    >
  >;
};

async function main(): Promise<void> {
  const runs = Math.max(1, Number(process.env.BENCH_RUNS ?? 5));
  const phases = PHASES.filter(
    (p) =>
      (process.env.BENCH_PHASES ?? 'on,off,uiohook').split(',').includes(p.phase) ||
      (p.phase === 'baseline' && p.cli !== undefined),
  );
  const desktop = await startDesktop();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cua-bench-rec-'));
  const load0 = os.loadavg();
  log(
    `recorder benchmark: 1280×800 @ ${FPS} fps, ${SECONDS} s of clicking on the GTK form per phase (glides at 50 moves/s, ${ACTIVITY_REST_S * 1000} ms rest, a click, ctrl+a and 4 letters in the entries), ${runs} rounds of ffmpeg alone / ${phases.map((p) => p.title).join(' / ')}`,
  );
  const rounds: RoundReport[] = [];
  try {
    const form = await launchGtkForm(desktop);
    const targets = formTargets(form);
    for (let round = 1; round <= runs; round += 1) {
      const alone = await ffmpegAlone(desktop, dir, form, targets);
      const report: RoundReport = { round, alone: { ...alone, load1m: load1m() }, recorder: {} };
      rounds.push(report);
      log(
        `round ${round}: ffmpeg alone ${pc(alone.share)} of a core (load ${load1m().toFixed(2)}); activity ${describeActivity(alone.activity)}; ${describeDesktop(alone.desktop)}`,
      );
      for (const p of phases) {
        const cli = 'cli' in p ? p.cli : undefined;
        const run = await recorderRun(desktop, dir, form, targets, [...p.args], p.env, cli);
        describeRun(p.label, run, alone);
        checkPace(`round ${round}, ${p.title}`, run.activity);
        if (p.phase !== 'off' && run.elements === 0) {
          throw new Error(
            `round ${round}, ${p.title}: no element record stored for ${run.clicksStored} clicks stored (${run.activity.clicks} made): the accessibility lookups did not happen, so this round measures no accessibility work`,
          );
        }
        const { perProcess: _perProcess, ...figures } = run;
        report.recorder[p.phase] = {
          ...figures,
          ratio: run.share / alone.share,
          systemRatio: systemRatio(run, alone),
          load1m: load1m(),
        };
      }
    }
  } finally {
    await desktop.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
  const load1 = os.loadavg();
  const list = (xs: number[]): string => xs.map((x) => x.toFixed(3)).join(', ');
  log(`ffmpeg alone, median: ${pc(median(rounds.map((r) => r.alone.share)))} of a core`);
  const medians: Partial<Record<Phase, { ratio: number; systemRatio: number; elements: number }>> =
    {};
  for (const p of phases) {
    const of = rounds.map((r) => r.recorder[p.phase]!);
    const ratios = of.map((r) => r.ratio);
    const system = of.map((r) => r.systemRatio);
    medians[p.phase] = {
      ratio: median(ratios),
      systemRatio: median(system),
      elements: median(of.map((r) => r.elements)),
    };
    log(
      `ratio recorder / ffmpeg alone, ${p.title}:  median ${median(ratios).toFixed(3)}  (${list(ratios)})${p.phase === 'on' ? `  aim ≤ ${AIM_RATIO}` : ''}; with the desktop's share: median ${median(system).toFixed(3)} (${list(system)}); element records per round ${of.map((r) => r.elements).join(', ')}, snapshots ${of.map((r) => r.snapshots).join(', ')}`,
    );
  }
  log(
    `load average (1/5/15 min) before ${load0.map((l) => l.toFixed(2)).join('/')}, after ${load1.map((l) => l.toFixed(2)).join('/')}; ${os.cpus().length} cores`,
  );
  if (IS_JSON) {
    const on = medians.on;
    console.log(
      JSON.stringify(
        {
          fps: FPS,
          secondsPerPhase: SECONDS,
          runs,
          cores: os.cpus().length,
          loadBefore: load0,
          loadAfter: load1,
          aimRatio: AIM_RATIO,
          medians,
          isWithinAim: on ? on.ratio <= AIM_RATIO : null,
          rounds,
        },
        null,
        2,
      ),
    );
  }
}

await main();
