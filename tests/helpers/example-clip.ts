// The example recording's first 10 seconds as an AgentNet folder of its own, for the tests that
// need a real recording with some video but nothing of the whole example's length: re-encoding
// or decoding the 122 s example costs each of them seconds of CPU. The video is a stream copy
// (no re-encode: the same H.264 frames, the first 302 of 3,678); every .jsonl row timed before
// the cut is kept (events, the 2 reduced steps that end before it, their trees and windows) and
// metadata.json's stop time is moved to the cut. Built once per test run (run-cache.ts).
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { FIXTURE_DIR } from './paths';
import { buildOnce, memoized } from './run-cache';

/** Length of the clip from the video's start. */
export const EXAMPLE_CLIP_SEC = 10;

const VIDEO = '2024-11-05 18-56-31.mp4';

type Row = { time_stamp?: number; end_time?: number };

// A row's time: `time_stamp` (events, trees, windows) or, for reduced steps, their `end_time`
// (docs/agentnet-raw-format.md): a step is kept only when it ended before the cut.
function rowTime(row: Row, file: string): number {
  const t = row.time_stamp ?? row.end_time;
  if (typeof t !== 'number') {
    throw new Error(`example clip: a row of ${file} has no time_stamp or end_time`);
  }
  return t;
}

// "YYYY-MM-DD HH:MM:SS" (local wall clock, as AgentNet writes it) plus `sec` seconds.
function addSeconds(wall: string, sec: number): string {
  const d = new Date(Date.parse(`${wall.replace(' ', 'T')}Z`) + sec * 1000);
  return d.toISOString().slice(0, 19).replace('T', ' ');
}

function makeClip(work: string): void {
  const dir = path.join(work, path.basename(FIXTURE_DIR));
  fs.mkdirSync(dir);
  const metadata = JSON.parse(fs.readFileSync(path.join(FIXTURE_DIR, 'metadata.json'), 'utf8')) as {
    video_start_timestamp: number;
    start_time: string;
    stop_time: string;
    obs_record_state_timings: Record<string, number[]>;
  };
  const cut = metadata.video_start_timestamp + EXAMPLE_CLIP_SEC;
  for (const name of fs.readdirSync(FIXTURE_DIR)) {
    const from = path.join(FIXTURE_DIR, name);
    if (name.endsWith('.jsonl')) {
      const kept = fs
        .readFileSync(from, 'utf8')
        .split('\n')
        .filter((line) => line.trim() && rowTime(JSON.parse(line) as Row, name) < cut);
      fs.writeFileSync(path.join(dir, name), kept.map((l) => `${l}\n`).join(''));
    } else if (name === 'metadata.json') {
      metadata.stop_time = addSeconds(metadata.start_time, EXAMPLE_CLIP_SEC);
      metadata.obs_record_state_timings.OBS_WEBSOCKET_OUTPUT_STOPPING = [cut];
      fs.writeFileSync(path.join(dir, name), JSON.stringify(metadata, null, 4));
    } else if (name !== VIDEO) {
      fs.copyFileSync(from, path.join(dir, name));
    }
  }
  execFileSync('ffmpeg', [
    ...['-v', 'error', '-nostdin', '-i', path.join(FIXTURE_DIR, VIDEO)],
    ...['-t', String(EXAMPLE_CLIP_SEC), '-c', 'copy', '-y', path.join(dir, VIDEO)],
  ]);
}

const clip = memoized(async (_key: 'clip') => {
  const built = await buildOnce('example-clip', (work) => {
    makeClip(work);
    return Promise.resolve({});
  });
  return path.join(built.dir, path.basename(FIXTURE_DIR));
});

/**
 * The example's first 10 seconds as an AgentNet folder (read-only: copy it before changing it),
 * named like the example (`win10-display-settings`); made once per test run.
 */
export function exampleClipDir(): Promise<string> {
  return clip('clip');
}
