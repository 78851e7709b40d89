// Replay benchmark (issue 15 item 1) on a private Xvfb desktop (1280×800) with the GTK form:
// records the scripted form session once (real recorder, xdotool), then replays it into a fresh
// form BENCH_RUNS times (default 3) at each speed in BENCH_SPEEDS (default 1,4), in-process
// through replayRecording with the real nut-js child and AT-SPI. Prints per speed: the replay's
// wall time against the recording's own duration (the ratio), steps per second, and per step
// the measurement overhead (grab + screen compare + element read) and the driving time, with
// the baseline of one bare nut-js screen grab measured in the same run (the driver's `grab`
// without comparing). Also prints the score of every run (expected 1).
// usage: npx tsx bench/replay.ts   (BENCH_RUNS, BENCH_SPEEDS)
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openLibrary } from '../src/services/library/library';
import { replayRecording } from '../src/services/quality/replay-service';
import { startDriverProcess } from '../src/replay/driver-process';
import { getRecording } from '../src/store';
import { startDesktop } from '../tests/helpers/desktop';
import { launchGtkForm, type GtkForm } from '../tests/fixtures/apps/gtk-form';
import { recordGtkFormSession } from '../tests/fixtures/apps/gtk-form-session';

const RUNS = Number(process.env.BENCH_RUNS ?? 3);
const SPEEDS = (process.env.BENCH_SPEEDS ?? '1,4').split(',').map(Number);

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? (s[(s.length - 1) >> 1]! + s[s.length >> 1]!) / 2 : NaN;
};
const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
const p95 = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.ceil(xs.length * 0.95) - 1]!;

async function main(): Promise<void> {
  const desktop = await startDesktop();
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'cua-bench-replay-'));
  const lib = path.join(root, 'lib');
  let form: GtkForm | null = await launchGtkForm(desktop);
  try {
    const session = await recordGtkFormSession(desktop, form, lib);
    const l = openLibrary(lib);
    const rec = getRecording(l.db, session.id);
    const recordedMs = rec.videos.reduce((sum, v) => sum + v.durationMs, 0);
    console.log(
      `recording: ${rec.id.slice(0, 8)}, ${(recordedMs / 1000).toFixed(1)} s of video, ` +
        `scripted activity ${(session.durationMs / 1000).toFixed(1)} s`,
    );

    // baseline: bare grabs of the same screen through the same child
    const { driver } = await startDriverProcess({ env: desktop.env, display: desktop.display });
    const grabs: number[] = [];
    for (let i = 0; i < 20; i++) {
      const t = performance.now();
      await driver.grab(160);
      grabs.push(performance.now() - t);
    }
    await driver.close();
    console.log(
      `baseline: one grab + thumbnail round trip ${median(grabs).toFixed(1)} ms median ` +
        `(p95 ${p95(grabs).toFixed(1)} ms, 20 grabs of 1280×800)`,
    );

    for (const speed of SPEEDS) {
      const walls: number[] = [];
      const measures: number[] = [];
      const drives: number[] = [];
      const scores: number[] = [];
      const startups: number[] = [];
      let steps = 0;
      for (let run = 0; run < RUNS; run++) {
        await form?.close();
        form = await launchGtkForm(desktop);
        await desktop.run('xdotool', ['mousemove', '700', '700']);
        const t = performance.now();
        let first: number | null = null;
        const report = await replayRecording(l, rec.id, {
          display: desktop.display,
          env: { ...desktop.env, DISPLAY: ':12345' },
          speed,
          onResult: (r) => {
            // the first result comes after the start and the first step's measure and drive
            first ??= performance.now() - t - r.measureMs - r.driveMs;
          },
        });
        startups.push(first ?? NaN);
        walls.push(performance.now() - t);
        scores.push(report.score);
        steps = report.stepCount;
        for (const s of report.steps) {
          measures.push(s.measureMs);
          if (s.kind === 'step') {
            drives.push(s.driveMs);
          }
        }
      }
      const wall = median(walls);
      console.log(
        `speed ${speed}: replay ${(wall / 1000).toFixed(1)} s median of ${RUNS} ` +
          `(${(wall / recordedMs).toFixed(2)}× the recording's duration; ` +
          `${((steps * 1000) / wall).toFixed(2)} steps/s; of which start-up (keyframes, driver, ` +
          `input hook, AT-SPI) ${(median(startups) / 1000).toFixed(1)} s); per step: measure ${mean(measures).toFixed(0)} ms mean ` +
          `(p95 ${p95(measures).toFixed(0)} ms, ${(mean(measures) / median(grabs)).toFixed(1)}× ` +
          `a bare grab), drive ${mean(drives).toFixed(0)} ms mean; scores ${scores.join(', ')}`,
      );
    }
    l.close();
  } finally {
    await form?.close();
    await desktop.stop();
    fs.rmSync(root, { recursive: true, force: true });
  }
}

await main();
