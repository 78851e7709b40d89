// Crash recovery waits for the last writer of a recording's video: the ffmpeg of a recorder that
// just died still writes its last fragment (after the parent-death SIGTERM) when the next command
// starts, and a remux before that would lose it. Real SQLite, ffmpeg, processes.
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveFfmpeg } from '../../../src/infra/ffmpeg/binary';
import { openLibrary, type Library } from '../../../src/services/library/library';
import { recoverActiveRecordings } from '../../../src/services/recording/crash-recovery';
import { makeRecording } from '../../helpers/store';

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'cua-recover-'));
let head: Buffer; // a fragmented MP4 up to its last fragment (60 of 90 frames)
let tail: string; // file with the last fragment and the trailer
const writers: ReturnType<typeof spawn>[] = [];

// Offset of the last top-level 'moof' box.
function lastMoofOffset(mp4: Buffer): number {
  let last = -1;
  for (let at = 0; at + 8 <= mp4.length;) {
    const size = mp4.readUInt32BE(at);
    if (mp4.toString('latin1', at + 4, at + 8) === 'moof') {
      last = at;
    }
    if (size < 8) {
      break;
    }
    at += size;
  }
  return last;
}

beforeAll(async () => {
  const ffmpeg = (await resolveFfmpeg()).path;
  const full = path.join(root, 'full.mp4');
  // 3 s at 30 fps, a keyframe (and so a fragment) per second, as the recorder writes them
  const made = spawnSync(ffmpeg, [
    ...['-hide_banner', '-loglevel', 'error', '-f', 'lavfi', '-i', 'testsrc=size=320x240:rate=30'],
    ...['-t', '3', '-c:v', 'libx264', '-preset', 'ultrafast', '-g', '30', '-pix_fmt', 'yuv420p'],
    ...['-movflags', '+frag_keyframe+empty_moov+default_base_moof', '-f', 'mp4', full],
  ]);
  expect(made.status, String(made.stderr)).toBe(0);
  const bytes = fs.readFileSync(full);
  const cut = lastMoofOffset(bytes);
  expect(cut).toBeGreaterThan(0);
  head = bytes.subarray(0, cut);
  tail = path.join(root, 'tail.bin');
  fs.writeFileSync(tail, bytes.subarray(cut));
});

afterAll(() => {
  writers.forEach((w) => w.kill('SIGKILL'));
  fs.rmSync(root, { recursive: true, force: true });
});

// A library holding one `active` recording whose recorder is dead, its video cut before the last
// fragment, and a process (standing in for ffmpeg) that appends that fragment after `delayS`.
async function crashedRecording(name: string, delayS: number): Promise<Library> {
  const lib = openLibrary(path.join(root, name));
  const gone = spawn('true');
  await new Promise((resolve) => gone.once('exit', resolve));
  const { id } = makeRecording(lib.db, { status: 'active', dir: `recordings/${name}` });
  const video = `recordings/${name}/video-0.mp4`;
  fs.mkdirSync(lib.resolve(`recordings/${name}`), { recursive: true });
  fs.writeFileSync(lib.resolve(video), head);
  lib.db.prepare('UPDATE recordings SET capture_json = ? WHERE id = ?').run(
    JSON.stringify({
      pid: gone.pid,
      segments: [{ path: video, videoStartMs: 0, method: 'test', uncertaintyMs: 0 }],
    }),
    id,
  );
  const writer = spawn(
    'sh',
    [
      '-c',
      'exec 3>>"$1"; echo ready; sleep "$3"; cat "$2" >&3',
      'sh',
      lib.resolve(video),
      tail,
      String(delayS),
    ],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  writers.push(writer);
  const lines = readline.createInterface({ input: writer.stdout });
  await new Promise((resolve) => lines.once('line', resolve));
  return lib;
}

describe('crash recovery', () => {
  it('waits until the video is no longer written, so the last fragment is kept', async () => {
    const lib = await crashedRecording('waits', 1);
    try {
      const [recovered] = await recoverActiveRecordings(lib);
      expect(recovered).toMatchObject({ status: 'recovered', frames: 90 });
      expect(recovered!.warnings.join('\n')).not.toContain('still being written');
    } finally {
      lib.close();
    }
  });

  it('gives up waiting after its limit and says the video was still being written', async () => {
    const lib = await crashedRecording('gives-up', 30);
    try {
      const [recovered] = await recoverActiveRecordings(lib, { writerWaitMs: 300 });
      expect(recovered).toMatchObject({ status: 'recovered', frames: 60 });
      expect(recovered!.warnings.join('\n')).toMatch(/still being written by pid \d+/);
    } finally {
      lib.close();
    }
  });
});
