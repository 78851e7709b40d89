// probeVideo and sha256File on the AgentNet fixture video, a generated clip and a corrupt file.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sha256File } from '../../../src/pipeline/io/hash';
import { parseFrameRate, parseInputBanner, probeVideo } from '../../../src/infra/ffmpeg/probe';
import type { ProbeBinaries, VideoProbe } from '../../../src/infra/ffmpeg/probe';
import { runCommand } from '../../../src/infra/run-command';
import { resolveFfmpeg } from '../../../src/infra/ffmpeg/binary';
import { AppError } from '../../../src/shared/errors';
import { fixturePath } from '../../helpers/fixture';
import { notAVideo } from '../../helpers/not-a-video';

const FIXTURE_VIDEO = path.join(
  fixturePath('agentnet-raw/win10-display-settings'),
  '2024-11-05 18-56-31.mp4',
);

/** Values measured with Debian's ffprobe 5.1.9 (docs/agentnet-raw-format.md, docs/keyframes.md). */
const FIXTURE_PROBE: VideoProbe = {
  width: 1276,
  height: 718,
  fps: 30,
  frameCount: 3678,
  durationMs: 122_600,
  containerDurationMs: 122_667,
  codec: 'h264',
  pixFmt: 'yuv420p',
  sizeBytes: 3_513_312,
  hasAudio: true,
  probedWith: 'ffprobe',
};

async function probeError(file: string, binaries: ProbeBinaries): Promise<AppError> {
  let error: unknown = null;
  try {
    await probeVideo(file, binaries);
  } catch (e) {
    error = e;
  }
  expect(error).toBeInstanceOf(AppError);
  return error as AppError;
}

describe('probeVideo', () => {
  let binaries: ProbeBinaries;
  let ffmpegOnly: ProbeBinaries;
  let tempDir = '';
  let clip = '';

  beforeAll(async () => {
    const ffmpeg = await resolveFfmpeg();
    expect(ffmpeg.ffprobePath).not.toBeNull();
    binaries = { path: ffmpeg.path, ffprobePath: ffmpeg.ffprobePath };
    ffmpegOnly = { path: ffmpeg.path, ffprobePath: null };
    tempDir = await mkdtemp(path.join(os.tmpdir(), 'cua-probe-'));
    clip = path.join(tempDir, 'testsrc.mp4');
    const made = await runCommand(
      ffmpeg.path,
      [
        ...['-hide_banner', '-nostdin', '-v', 'error'],
        ...['-f', 'lavfi', '-i', 'testsrc=size=320x240:rate=10', '-t', '1'],
        ...['-c:v', 'libx264', '-preset', 'ultrafast', '-pix_fmt', 'yuv420p', clip],
      ],
      { timeoutMs: 30_000 },
    );
    expect(made.stderr).toBe('');
    expect(made.code).toBe(0);
  });

  afterAll(async () => {
    await rm(tempDir, { recursive: true, force: true });
  });

  it('reads the fixture video exactly with ffprobe', async () => {
    expect(await probeVideo(FIXTURE_VIDEO, binaries)).toEqual(FIXTURE_PROBE);
  });

  it('reads the fixture video with ffmpeg alone (no stream duration)', async () => {
    expect(await probeVideo(FIXTURE_VIDEO, ffmpegOnly)).toEqual({
      ...FIXTURE_PROBE,
      durationMs: null,
      // the banner prints the container duration to 10 ms: 00:02:02.67
      containerDurationMs: 122_670,
      probedWith: 'ffmpeg',
    });
  });

  it('falls back to ffmpeg when the ffprobe path cannot be started', async () => {
    const probe = await probeVideo(FIXTURE_VIDEO, {
      path: binaries.path,
      ffprobePath: path.join(tempDir, 'no-ffprobe'),
    });
    expect(probe.probedWith).toBe('ffmpeg');
    expect(probe.frameCount).toBe(3678);
  });

  it('counts the frames of a generated 1 s clip at 10 fps', async () => {
    const expected = {
      width: 320,
      height: 240,
      fps: 10,
      frameCount: 10,
      codec: 'h264',
      pixFmt: 'yuv420p',
      hasAudio: false,
    };
    const probe = await probeVideo(clip, binaries);
    expect(probe).toMatchObject({ ...expected, durationMs: 1000, probedWith: 'ffprobe' });
    expect(await probeVideo(clip, ffmpegOnly)).toMatchObject({
      ...expected,
      durationMs: null,
      probedWith: 'ffmpeg',
    });
  });

  it('rejects a corrupt file with VIDEO_UNREADABLE naming the file and the ffprobe error', async () => {
    const corrupt = path.join(tempDir, 'corrupt.mp4');
    await writeFile(corrupt, notAVideo(4096));
    const error = await probeError(corrupt, binaries);
    expect(error.code).toBe('VIDEO_UNREADABLE');
    expect(error.message).toContain(corrupt);
    expect(error.message).toContain('Invalid data found when processing input');

    const fallbackError = await probeError(corrupt, ffmpegOnly);
    expect(fallbackError.code).toBe('VIDEO_UNREADABLE');
    expect(fallbackError.message).toContain('Invalid data found when processing input');
  });

  it('rejects a missing file and a file without video', async () => {
    const missing = await probeError(path.join(tempDir, 'missing.mp4'), binaries);
    expect(missing.code).toBe('VIDEO_UNREADABLE');
    expect(missing.message).toContain('does not exist');

    const audioOnly = path.join(tempDir, 'tone.m4a');
    const made = await runCommand(
      binaries.path,
      [
        ...['-hide_banner', '-nostdin', '-v', 'error'],
        ...['-f', 'lavfi', '-i', 'sine=frequency=440:duration=0.5', audioOnly],
      ],
      { timeoutMs: 30_000 },
    );
    expect(made.code).toBe(0);
    for (const tools of [binaries, ffmpegOnly]) {
      const error = await probeError(audioOnly, tools);
      expect(error.code).toBe('VIDEO_UNREADABLE');
      expect(error.message).toMatch(/no video stream|matches no streams/);
    }
  });
});

describe('probe parsers', () => {
  it('parses frame rates', () => {
    expect(parseFrameRate('30/1')).toBe(30);
    expect(parseFrameRate('30000/1001')).toBeCloseTo(29.97, 2);
    expect(parseFrameRate('0/0')).toBeNull();
    expect(parseFrameRate('25')).toBe(25);
    expect(parseFrameRate(undefined)).toBeNull();
  });

  it('reads the input banner and ignores the output banner', () => {
    const stderr = [
      "Input #0, mov,mp4,m4a,3gp,3g2,mj2, from 'a.mp4':",
      '  Duration: 00:00:03.50, start: 0.000000, bitrate: 229 kb/s',
      '  Stream #0:0[0x1](und): Video: h264 (High) (avc1 / 0x31637661), yuv420p(tv, bt709, progressive), 1280x800 [SAR 1:1 DAR 8:5], 218 kb/s, 29.97 fps, 29.97 tbr, 30k tbn (default)',
      "Output #0, null, to 'pipe:':",
      '  Stream #0:0(und): Video: h264 (High), yuv420p, 640x480, q=2-31, 30 fps (default)',
    ].join('\n');
    expect(parseInputBanner(stderr)).toEqual({
      width: 1280,
      height: 800,
      fps: 29.97,
      codec: 'h264',
      pixFmt: 'yuv420p',
      hasAudio: false,
      containerDurationMs: 3500,
    });
    expect(parseInputBanner('no banner')).toBeNull();
  });
});

describe('sha256File', () => {
  it('hashes the fixture video', async () => {
    expect(await sha256File(FIXTURE_VIDEO)).toBe(
      '97e440bd4550d63dcef1bfe4d9aaeb466693cd9b9295d21ddfe7fc441c289e88',
    );
  });
});
