// FrameDecoder with the real ffmpeg: one pass over hundreds of selected indices, early stop,
// missing frames, corrupt input, abort, start timeout and size checks.
import { createHash } from 'node:crypto';
import { chmod, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  FrameDecoder,
  buildFrameDecoderArgs,
  buildFrameFilterScript,
  buildSelectExpression,
  decodeFrames,
} from '../../../src/pipeline/media/frame-decoder';
import type { DecodedFrame, FrameDecoderOptions } from '../../../src/pipeline/media/frame-decoder';
import { runCommand } from '../../../src/infra/run-command';
import { resolveFfmpeg } from '../../../src/infra/ffmpeg/binary';
import { AppError } from '../../../src/shared/errors';
import { notAVideo } from '../../helpers/not-a-video';
import { FIXTURE_DIR } from '../../helpers/paths';

const WIDTH = 64;
const HEIGHT = 48;
const CLIP_FRAMES = 600;

let ffmpegPath = '';
let tempDir = '';
let clip = '';
/** sha256 of every frame of the clip, decoded in full with the same conversion. */
let frameHashes: string[] = [];

function hash(data: Uint8Array): string {
  return createHash('sha256').update(data).digest('hex');
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function decodeError(promise: Promise<unknown>): Promise<AppError> {
  let error: unknown = null;
  try {
    await promise;
  } catch (e) {
    error = e;
  }
  expect(error).toBeInstanceOf(AppError);
  return error as AppError;
}

function clipOptions(overrides: Partial<FrameDecoderOptions>): FrameDecoderOptions {
  return {
    ffmpeg: { path: ffmpegPath },
    videoPath: clip,
    frames: [0],
    width: WIDTH,
    height: HEIGHT,
    onFrame: () => undefined,
    ...overrides,
  };
}

beforeAll(async () => {
  ffmpegPath = (await resolveFfmpeg()).path;
  tempDir = await mkdtemp(path.join(os.tmpdir(), 'cua-frame-decoder-'));
  clip = path.join(tempDir, 'pattern.mkv');
  // 600 frames of a pattern that shifts every frame, lossless, so every frame is different
  const pattern =
    `nullsrc=s=${WIDTH}x${HEIGHT}:r=30:d=20,format=yuv444p,` +
    "geq=lum='mod(X*3+Y*5+N,256)':cb='mod(100+40*floor(N/256)+X,256)':cr=128";
  const made = await runCommand(
    ffmpegPath,
    [...['-v', 'error', '-f', 'lavfi', '-i', pattern], ...['-c:v', 'ffv1', '-y', clip]],
    { timeoutMs: 60_000 },
  );
  expect(made.code).toBe(0);
  // the truth: every frame decoded by one plain command with the same conversion
  const allRaw = path.join(tempDir, 'all.rgb');
  const full = await runCommand(
    ffmpegPath,
    [
      ...['-v', 'error', '-i', clip],
      ...['-vf', 'scale=in_color_matrix=bt601:flags=bicubic'],
      ...['-f', 'rawvideo', '-pix_fmt', 'rgb24', '-y', allRaw],
    ],
    { timeoutMs: 60_000 },
  );
  expect(full.code).toBe(0);
  const all = await readFile(allRaw);
  const frameBytes = WIDTH * HEIGHT * 3;
  expect(all.length).toBe(CLIP_FRAMES * frameBytes);
  frameHashes = Array.from({ length: CLIP_FRAMES }, (_, i) =>
    hash(all.subarray(i * frameBytes, (i + 1) * frameBytes)),
  );
  // the hashes identify frames only if no two frames are equal
  expect(new Set(frameHashes).size).toBe(CLIP_FRAMES);
});

afterAll(async () => {
  await rm(tempDir, { recursive: true, force: true });
});

describe('buildSelectExpression / args', () => {
  it('selects nothing, single frames and runs, as a balanced if/lt tree', () => {
    expect(buildSelectExpression([])).toBe('0');
    expect(buildSelectExpression([7])).toBe('eq(n,7)');
    expect(buildSelectExpression([3, 4, 5])).toBe('between(n,3,5)');
    expect(buildSelectExpression([1, 3, 4, 9])).toBe(
      'if(lt(n,3),eq(n,1),if(lt(n,9),between(n,3,4),eq(n,9)))',
    );
    expect(buildFrameFilterScript([2])).toBe(
      "select='eq(n,2)',scale=in_color_matrix=bt601:flags=bicubic",
    );
  });

  it('keeps the tree shallow for thousands of indices', () => {
    const frames = Array.from({ length: 5000 }, (_, i) => i * 3);
    const expression = buildSelectExpression(frames);
    // nesting depth of if( … ) calls
    const stack: boolean[] = [];
    let maxIfDepth = 0;
    for (let i = 0; i < expression.length; i += 1) {
      if (expression[i] === '(') {
        stack.push(expression.slice(i - 2, i) === 'if');
        maxIfDepth = Math.max(maxIfDepth, stack.filter(Boolean).length);
      } else if (expression[i] === ')') {
        stack.pop();
      }
    }
    expect(stack).toEqual([]);
    expect(maxIfDepth).toBe(Math.ceil(Math.log2(5000)));
    expect(expression.match(/eq\(n,/g)).toHaveLength(5000);
  });

  it('reads the filtergraph from a script file and emits raw RGB24 on stdout', () => {
    const args = buildFrameDecoderArgs({
      videoPath: '/v.mp4',
      filterScriptPath: '/tmp/f.txt',
      frameCount: 3,
    });
    expect(args).toEqual([
      ...['-hide_banner', '-nostdin', '-nostats', '-loglevel', 'info', '-i', '/v.mp4'],
      ...['-map', '0:v:0', '-filter_script:v', '/tmp/f.txt', '-fps_mode', 'passthrough'],
      ...['-frames:v', '3', '-f', 'rawvideo', '-pix_fmt', 'rgb24', '-'],
    ]);
  });
});

/** Frames through a named pipe (the default on Linux) and through stdout (Windows). */
const TRANSPORTS = ['auto', 'stdout'] as const;

describe('FrameDecoder', () => {
  it.each(TRANSPORTS)(
    'decodes hundreds of scattered indices in one pass, in index order, bit-exact (%s)',
    async (transport) => {
      // 350 indices: runs, isolated frames and a dense block, given unsorted with duplicates
      const wanted = new Set<number>();
      for (let i = 0; wanted.size < 300; i += 1) {
        wanted.add((i * 7919) % 590);
      }
      for (let i = 590; i < CLIP_FRAMES; i += 1) {
        wanted.add(i);
      }
      const sorted = [...wanted].sort((a, b) => a - b);
      const received: DecodedFrame[] = [];
      const result = await decodeFrames(
        clipOptions({
          transport,
          frames: [...sorted].reverse().concat(sorted.slice(0, 5)),
          onFrame: (frame) => {
            received.push(frame);
          },
        }),
      );
      expect(result).toMatchObject({
        frames: sorted,
        decodedCount: sorted.length,
        missingFrames: [],
        isStoppedEarly: false,
      });
      expect(received.map((f) => f.index)).toEqual(sorted);
      expect(received.map((f) => f.ordinal)).toEqual(sorted.map((_, i) => i));
      expect(received.map((f) => hash(f.rgb))).toEqual(sorted.map((i) => frameHashes[i]));
      expect(received.every((f) => f.width === WIDTH && f.height === HEIGHT)).toBe(true);
    },
  );

  it.each(TRANSPORTS)(
    'reports requested frames past the end as missing (%s)',
    async (transport) => {
      const received: number[] = [];
      const logs: string[] = [];
      const result = await decodeFrames(
        clipOptions({
          transport,
          frames: [598, 599, 600, 750],
          onFrame: (frame) => {
            received.push(frame.index);
          },
          log: (message) => logs.push(message),
        }),
      );
      expect(received).toEqual([598, 599]);
      expect(result.missingFrames).toEqual([600, 750]);
      expect(logs[0]).toMatch(/^spawn .*-filter_script:v .*\(4 frames\)$/);
      // a named pipe in the decode's temp folder, or stdout
      expect(logs[0]).toMatch(
        transport === 'auto' ? / -y \S*frames\.fifo \(4 frames\)$/ : / rgb24 - \(4 frames\)$/,
      );
      expect(logs).toContain('ready');
      expect(logs.at(-1)).toMatch(/^exit code 0 .* 2\/4 frames/);
    },
  );

  it('accepts thousands of indices (filter script, not the command line)', async () => {
    const frames = Array.from({ length: 4000 }, (_, i) => i * 2);
    const received: number[] = [];
    const result = await decodeFrames(
      clipOptions({
        frames,
        onFrame: (frame) => {
          received.push(frame.index);
          expect(hash(frame.rgb)).toBe(frameHashes[frame.index]);
        },
      }),
    );
    expect(received).toEqual(frames.filter((f) => f < CLIP_FRAMES));
    expect(result.missingFrames).toEqual(frames.filter((f) => f >= CLIP_FRAMES));
  });

  it.each(TRANSPORTS)(
    "stops early when the callback returns 'stop' and awaits async callbacks (%s)",
    async (transport) => {
      const received: number[] = [];
      const decoder = new FrameDecoder(
        clipOptions({
          transport,
          frames: [10, 20, 30, 400],
          onFrame: async (frame) => {
            await new Promise((resolve) => setTimeout(resolve, 20));
            received.push(frame.index);
            return frame.index === 20 ? 'stop' : undefined;
          },
        }),
      );
      await decoder.start();
      const result = await decoder.done;
      expect(received).toEqual([10, 20]);
      expect(result).toMatchObject({ decodedCount: 2, isStoppedEarly: true, missingFrames: [] });
      expect(isAlive(decoder.pid!)).toBe(false);
    },
  );

  it('resolves at once for an empty frame list without spawning', async () => {
    const decoder = new FrameDecoder(clipOptions({ frames: [] }));
    await decoder.start();
    expect(decoder.pid).toBeUndefined();
    expect(await decoder.done).toMatchObject({ decodedCount: 0, missingFrames: [] });
  });

  it('rejects bad indices and a second start()', async () => {
    expect(() => new FrameDecoder(clipOptions({ frames: [-1] }))).toThrow(RangeError);
    expect(() => new FrameDecoder(clipOptions({ frames: [1.5] }))).toThrow(RangeError);
    const decoder = new FrameDecoder(clipOptions({ frames: [1] }));
    await decoder.start();
    await expect(decoder.start()).rejects.toThrow(/already/);
    await decoder.done;
  });

  it('corrupt file: VIDEO_UNREADABLE with the stderr tail', async () => {
    const corrupt = path.join(tempDir, 'corrupt.mp4');
    await writeFile(corrupt, notAVideo(64 * 1024));
    const error = await decodeError(decodeFrames(clipOptions({ videoPath: corrupt })));
    expect(error.code).toBe('VIDEO_UNREADABLE');
    expect(error.message).toContain('Invalid data found when processing input');
    expect(error.details?.stderrTail).toContain('Invalid data found when processing input');
    expect(error.details?.exitCode).not.toBe(0);
  });

  it('truncated mp4 (no moov atom): VIDEO_UNREADABLE naming the cause', async () => {
    const truncated = path.join(tempDir, 'truncated.mp4');
    const head = (await readFile(path.join(FIXTURE_DIR, '2024-11-05 18-56-31.mp4'))).subarray(
      0,
      200_000,
    );
    await writeFile(truncated, head);
    const error = await decodeError(
      decodeFrames(clipOptions({ videoPath: truncated, width: 1276, height: 718 })),
    );
    expect(error.code).toBe('VIDEO_UNREADABLE');
    expect(error.message).toContain('moov atom not found');
  });

  it('missing binary: FFMPEG_NOT_FOUND', async () => {
    const error = await decodeError(
      decodeFrames(clipOptions({ ffmpeg: { path: path.join(tempDir, 'no-such-ffmpeg') } })),
    );
    expect(error.code).toBe('FFMPEG_NOT_FOUND');
  });

  it('wrong frame size: FFMPEG_FAILED from the output banner', async () => {
    const error = await decodeError(
      decodeFrames(clipOptions({ frames: [1, 2, 3], width: WIDTH, height: HEIGHT - 1 })),
    );
    expect(error.code).toBe('FFMPEG_FAILED');
    expect(error.message).toMatch(/64×48.*64×47|more than the 3 frames/);
  });

  it('abort kills the child and rejects with ABORTED', async () => {
    const controller = new AbortController();
    let decoder: FrameDecoder | null = null;
    let pidAtAbort = 0;
    decoder = new FrameDecoder({
      ffmpeg: { path: ffmpegPath },
      videoPath: path.join(FIXTURE_DIR, '2024-11-05 18-56-31.mp4'),
      frames: Array.from({ length: 3000 }, (_, i) => i),
      width: 1276,
      height: 718,
      signal: controller.signal,
      onFrame: (frame) => {
        if (frame.ordinal === 2) {
          pidAtAbort = decoder!.pid!;
          expect(isAlive(pidAtAbort)).toBe(true);
          controller.abort();
        }
      },
    });
    await decoder.start();
    const error = await decodeError(decoder.done);
    expect(error.code).toBe('ABORTED');
    expect(pidAtAbort).toBeGreaterThan(0);
    expect(isAlive(pidAtAbort)).toBe(false);
  });

  it('an already aborted signal rejects start() without spawning', async () => {
    const decoder = new FrameDecoder(clipOptions({ signal: AbortSignal.abort() }));
    const error = await decodeError(decoder.start());
    expect(error.code).toBe('ABORTED');
    expect(decoder.pid).toBeUndefined();
  });

  it('start timeout: FFMPEG_START_TIMEOUT and the hung child is killed', async () => {
    // a stand-in ffmpeg that never opens anything
    const hung = path.join(tempDir, 'hung-ffmpeg.sh');
    await writeFile(hung, '#!/bin/sh\necho "starting up" >&2\nexec sleep 30\n');
    await chmod(hung, 0o755);
    const decoder = new FrameDecoder(
      clipOptions({ ffmpeg: { path: hung }, startTimeoutMs: 300, killGraceMs: 200 }),
    );
    const error = await decodeError(decoder.start());
    expect(error.code).toBe('FFMPEG_START_TIMEOUT');
    expect(error.message).toContain('starting up');
    expect(isAlive(decoder.pid!)).toBe(false);
  });

  it('stop() right after start() ends the decode without delivering frames', async () => {
    const received: number[] = [];
    const decoder = new FrameDecoder(
      clipOptions({ frames: [500, 550], onFrame: (frame) => void received.push(frame.index) }),
    );
    const started = decoder.start();
    await decoder.stop();
    await started;
    expect(await decoder.done).toMatchObject({ isStoppedEarly: true });
    expect(received.length).toBeLessThan(2);
    if (decoder.pid !== undefined) {
      expect(isAlive(decoder.pid)).toBe(false);
    }
  });

  it('stop() ends a running decode with isStoppedEarly', async () => {
    const decoder = new FrameDecoder({
      ffmpeg: { path: ffmpegPath },
      videoPath: path.join(FIXTURE_DIR, '2024-11-05 18-56-31.mp4'),
      frames: [3000, 3500],
      width: 1276,
      height: 718,
      onFrame: () => undefined,
    });
    await decoder.start();
    const pid = decoder.pid!;
    await decoder.stop();
    expect(await decoder.done).toMatchObject({ isStoppedEarly: true, decodedCount: 0 });
    expect(isAlive(pid)).toBe(false);
  });
});
