// Crash safety with the real ffmpeg on a real Xvfb: SIGKILL the recorder's ffmpeg after ~3 s, the
// fragmented MP4 keeps everything up to the last finished fragment (≤ 1 s before the kill), and
// remuxRecording turns it into a regular faststart MP4; plain MP4s killed the same way are not
// recoverable and are reported as such.
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { monotonicNowMs } from '../../../src/recorder/clock';
import { resolveFfmpeg } from '../../../src/infra/ffmpeg/binary';
import { FfmpegRecorder } from '../../../src/recorder/screen/ffmpeg-process';
import { probePlayable, remuxRecording } from '../../../src/infra/ffmpeg/remux';
import { AppError } from '../../../src/shared/errors';
import { probeStream, topLevelBoxes } from '../../recorder/screen/helpers/media';
import { sleep, startXvfb } from '../../recorder/screen/helpers/xvfb';
import type { Xvfb } from '../../recorder/screen/helpers/xvfb';

const FPS = 30;
/**
 * Frames between ffmpeg's progress counter (frames sent to the encoder) and packets reaching the
 * muxer: x264 frame threads (3 on 2 cores) plus the fps filter's one-frame look-ahead, rounded up.
 */
const PIPELINE_DELAY_FRAMES = 6;

async function caught(promise: Promise<unknown>): Promise<AppError> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(AppError);
    return error as AppError;
  }
  throw new Error('expected a rejection');
}

describe('crash recovery (real ffmpeg, real Xvfb)', () => {
  let xvfb: Xvfb;
  let ffmpegPath = '';
  let dir = '';

  beforeAll(async () => {
    xvfb = await startXvfb(1280, 800);
    ffmpegPath = (await resolveFfmpeg()).path;
    dir = await mkdtemp(path.join(os.tmpdir(), 'cua-remux-'));
  });

  afterAll(async () => {
    await xvfb?.stop();
    await rm(dir, { recursive: true, force: true });
  });

  it('keeps all but the last ≤ 1 s after SIGKILL, and remux makes a regular playable MP4', async () => {
    const outputPath = path.join(dir, 'killed.mp4');
    const recorder = new FfmpegRecorder();
    const started = await recorder.start({
      ffmpegPath,
      source: { kind: 'x11grab', display: xvfb.display },
      outputPath,
      fps: FPS,
      // fresh progress: what ffmpeg had processed right before the kill
      progressIntervalMs: 100,
    });
    await sleep(started.videoStart.monotonicMs + 3000 - monotonicNowMs());
    const framesAtKill = recorder.lastProgress?.frame ?? 0;
    const killedAtMs = monotonicNowMs();
    process.kill(started.pid, 'SIGKILL');

    const error = await caught(recorder.done);
    expect(error.code).toBe('FFMPEG_FAILED');
    expect(error.message).toContain('killed by SIGKILL');
    expect(error.details).toMatchObject({ signal: 'SIGKILL', exitCode: null });

    // the file is readable as it is; ffmpeg never finished it (no 'mfra' at the end)
    expect(topLevelBoxes(await readFile(outputPath)).at(-1)).not.toBe('mfra');
    const killed = await probeStream(outputPath);
    const recordedSec = (killedAtMs - started.videoStart.monotonicMs) / 1000;
    console.log(
      `SIGKILL after ${recordedSec.toFixed(2)} s of video: ${killed.decodedFrames} frames on disk, ` +
        `${framesAtKill} reported by the last progress block`,
    );
    // every fragment closed by a keyframe before the kill is on disk: at most one keyframe
    // interval (1 s = FPS frames) plus the encoder pipeline is lost. Bounded by what ffmpeg had
    // processed, not by wall time: on a loaded machine the encoder runs behind the capture.
    expect(framesAtKill).toBeGreaterThan(FPS + PIPELINE_DELAY_FRAMES);
    expect(killed.decodedFrames).toBeGreaterThanOrEqual(framesAtKill - FPS - PIPELINE_DELAY_FRAMES);
    expect(killed.decodedFrames).toBeLessThanOrEqual(Math.ceil(recordedSec * FPS) + 1);
    expect(killed).toMatchObject({ codec: 'h264', width: 1280, height: 800, rFrameRate: '30/1' });

    const asIs = await probePlayable(outputPath, { ffmpegPath });
    expect(asIs.isPlayable).toBe(true);
    expect(asIs.decodableFrames).toBe(killed.decodedFrames);

    const remuxedPath = path.join(dir, 'recovered.mp4');
    const remuxed = await remuxRecording(outputPath, remuxedPath, { ffmpegPath });
    expect(remuxed.outputPath).toBe(remuxedPath);
    expect(remuxed.probe).toMatchObject({
      isPlayable: true,
      decodableFrames: killed.decodedFrames,
      exitCode: 0,
    });
    expect(remuxed.probe.durationMs).toBeCloseTo((killed.decodedFrames / FPS) * 1000, 0);
    // faststart: one moov before the media data, no fragments
    const boxes = topLevelBoxes(await readFile(remuxedPath));
    expect(boxes.slice(0, 2)).toEqual(['ftyp', 'moov']);
    expect(boxes).not.toContain('moof');
    expect(boxes).toContain('mdat');
    expect(remuxed.sizeBytes).toBeGreaterThan(0);
    const recovered = await probeStream(remuxedPath);
    expect(recovered.decodedFrames).toBe(killed.decodedFrames);
    expect(recovered.rFrameRate).toBe('30/1');

    // in place: the output may be the input itself; no temp files are left behind
    const inPlace = await remuxRecording(outputPath, outputPath, { ffmpegPath });
    expect(inPlace.probe.decodableFrames).toBe(killed.decodedFrames);
    expect((await readdir(dir)).filter((name) => name.includes('.tmp'))).toEqual([]);
  });

  it('reports a killed plain (non-fragmented) MP4 as unplayable and unrecoverable', async () => {
    // what crash safety avoids: a regular MP4 has no moov until ffmpeg finishes
    const plainPath = path.join(dir, 'plain.mp4');
    const child = spawn(
      ffmpegPath,
      [
        '-hide_banner',
        '-loglevel',
        'error',
        '-f',
        'x11grab',
        '-framerate',
        '30',
        '-i',
        `${xvfb.display}.0`,
        '-c:v',
        'libx264',
        '-preset',
        'ultrafast',
        '-pix_fmt',
        'yuv420p',
        plainPath,
      ],
      { stdio: 'ignore' },
    );
    await sleep(1500);
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGKILL');
    await exited;

    const probe = await probePlayable(plainPath, { ffmpegPath });
    expect(probe.isPlayable).toBe(false);
    expect(probe.decodableFrames).toBe(0);
    expect(probe.exitCode).not.toBe(0);
    expect(probe.errorLines.join('\n')).toContain('moov atom not found');

    const error = await caught(
      remuxRecording(plainPath, path.join(dir, 'plain-fixed.mp4'), { ffmpegPath }),
    );
    expect(error.code).toBe('VIDEO_UNREADABLE');
    expect(error.message).toContain('moov atom not found');
    expect(error.message).toContain(plainPath);
    const names = await readdir(dir);
    expect(names).not.toContain('plain-fixed.mp4');
    expect(names.filter((name) => name.includes('.tmp'))).toEqual([]);
  });

  it('reports garbage and missing files as unplayable', async () => {
    const garbage = path.join(dir, 'garbage.mp4');
    await writeFile(garbage, Buffer.alloc(4096, 7));
    const probe = await probePlayable(garbage, { ffmpegPath });
    expect(probe).toMatchObject({ isPlayable: false, decodableFrames: 0 });
    expect(probe.errorLines.length).toBeGreaterThan(0);

    const missing = await probePlayable(path.join(dir, 'nope.mp4'), { ffmpegPath });
    expect(missing.isPlayable).toBe(false);
    expect(missing.errorLines.join('\n')).toContain('No such file or directory');

    const noBinary = await caught(
      probePlayable(garbage, { ffmpegPath: path.join(dir, 'no-ffmpeg') }),
    );
    expect(noBinary.code).toBe('FFMPEG_NOT_FOUND');
  });
});
