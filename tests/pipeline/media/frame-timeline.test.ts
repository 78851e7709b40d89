// The frame timeline (pts per frame index, keyframes) and the seek arithmetic built on it; the
// real listing of the fixture video, and decodes that seek (forward and reversed) delivering the
// same pixels as the sequential decode from frame 0.
import { beforeAll, describe, expect, it } from 'vitest';
import { readAgentNetFolder } from '../../../src/pipeline/io/agentnet-read';
import { decodeFrames } from '../../../src/pipeline/media/frame-decoder';
import {
  keyframeAtOrBefore,
  parseFrameTimeline,
  readFrameTimeline,
  seekSecondsOf,
  stopSecondsAfter,
} from '../../../src/pipeline/media/frame-timeline';
import type { FrameTimeline } from '../../../src/pipeline/media/frame-timeline';
import { planDecodeSegments } from '../../../src/pipeline/media/keyframes-extract';
import { resolveFfmpeg } from '../../../src/infra/ffmpeg/binary';
import { FIXTURE_DIR } from '../../helpers/paths';

const timelineOf = (pts: number[], keyframes: number[], den = 15360): FrameTimeline => ({
  timeBase: { num: 1, den },
  pts,
  keyframes,
});

describe('parseFrameTimeline', () => {
  it('orders frames by pts (packets come in decoding order) and finds the keyframes', () => {
    const text = ['0,K_', '2048,__', '1024,__', '1536,__', '3072,K_', '2560,__', '1/15360', ''];
    expect(parseFrameTimeline(text.join('\n'))).toEqual({
      timeBase: { num: 1, den: 15360 },
      pts: [0, 1024, 1536, 2048, 2560, 3072],
      keyframes: [0, 5],
    });
  });

  it.each([
    ['a packet without pts', '0,K_\nN/A,__\n1/30\n'],
    ['a repeated pts', '0,K_\n1,__\n1,__\n1/30\n'],
    ['no time base', '0,K_\n1,__\n'],
    ['no packets', '1/30\n'],
    ['a first frame that is not a keyframe', '0,__\n1,K_\n1/30\n'],
    ['a zero time base', '0,K_\n0/30\n'],
  ])('refuses %s (the caller then decodes from frame 0)', (_, text) => {
    expect(parseFrameTimeline(text)).toBeNull();
  });
});

describe('seek arithmetic', () => {
  it('finds the keyframe at or before a frame', () => {
    const timeline = timelineOf([0, 1, 2, 3, 4, 5, 6], [0, 3, 5]);
    expect([0, 2, 3, 4, 5, 6].map((frame) => keyframeAtOrBefore(timeline, frame))).toEqual([
      0, 0, 3, 3, 5, 5,
    ]);
  });

  it('seeks to a keyframe pts rounded up to the microsecond, exactly', () => {
    // 1.3 s = 19968 ticks of 1/15360 s (the fixture's second keyframe)
    expect(seekSecondsOf(timelineOf([0, 19968], [0, 1]), 1)).toBe('1.300000');
    // 1 tick of 1/90000 s = 11.11… µs → 12 µs (never before the keyframe)
    expect(seekSecondsOf(timelineOf([0, 1], [0, 1], 90000), 1)).toBe('0.000012');
    // a negative pts rounds up toward zero
    expect(seekSecondsOf(timelineOf([-1, 0], [0], 90000), 0)).toBe('-0.000011');
    expect(() => seekSecondsOf(timelineOf([0], [0]), 1)).toThrow(RangeError);
  });

  it('stops reading halfway to the next frame (rounded down), or not at all after the last', () => {
    const timeline = timelineOf([0, 512, 1024], [0]);
    // halfway between 512 and 1024 ticks = 768 / 15360 s = 0.05 s
    expect(stopSecondsAfter(timeline, 1)).toBe('0.050000');
    // 256 / 15360 s = 16.666… ms → 16666 µs
    expect(stopSecondsAfter(timeline, 0)).toBe('0.016666');
    expect(stopSecondsAfter(timeline, 2)).toBeNull();
  });
});

describe('planDecodeSegments', () => {
  const keyframes = [0, 100, 200, 300];
  const keyframeOf = (frame: number) => keyframes.filter((k) => k <= frame).at(-1) ?? 0;

  it('merges ranges whose keyframe lies within the gap after the current segment', () => {
    const segments = planDecodeSegments(
      [
        { first: 210, last: 230 }, // keyframe 200
        { first: 10, last: 40 }, // keyframe 0
        { first: 60, last: 150 }, // keyframe 0: overlaps the decode from 0
        { first: 205, last: 208 }, // keyframe 200, inside the segment from 200
      ],
      keyframeOf,
      30,
    );
    expect(segments).toEqual([
      { startFrame: 0, lastFrame: 150, members: [1, 2] },
      { startFrame: 200, lastFrame: 230, members: [3, 0] },
    ]);
  });

  it('continues through a short gap instead of starting another decode', () => {
    // keyframe 200 is 40 frames after the segment's end: merged with a gap of 60, not with 30
    const ranges = [
      { first: 10, last: 160 },
      { first: 220, last: 240 },
    ];
    expect(planDecodeSegments(ranges, keyframeOf, 60)).toHaveLength(1);
    expect(planDecodeSegments(ranges, keyframeOf, 30)).toHaveLength(2);
  });

  it('puts everything into one decode from frame 0 without a timeline', () => {
    const segments = planDecodeSegments(
      [
        { first: 3000, last: 3100 },
        { first: 5, last: 9 },
      ],
      () => 0,
    );
    expect(segments).toEqual([{ startFrame: 0, lastFrame: 3100, members: [1, 0] }]);
  });
});

describe('the fixture video', () => {
  let timeline: FrameTimeline;
  let ffmpegPath = '';
  let videoPath = '';

  beforeAll(async () => {
    const binary = await resolveFfmpeg();
    expect(binary.ffprobePath).not.toBeNull();
    ffmpegPath = binary.path;
    videoPath = (await readAgentNetFolder(FIXTURE_DIR)).videoPath;
    const listed = await readFrameTimeline(videoPath, binary.ffprobePath!);
    expect(listed).not.toBeNull();
    timeline = listed!;
  }, 60_000);

  it('lists 3678 frames at 512 ticks apart with 18 keyframes (irregular pts at the end)', () => {
    expect(timeline.timeBase).toEqual({ num: 1, den: 15360 });
    expect(timeline.pts).toHaveLength(3678);
    expect(timeline.pts.slice(0, 4)).toEqual([0, 512, 1024, 1536]);
    expect(timeline.pts[3000]).toBe(3000 * 512);
    expect(timeline.keyframes).toHaveLength(18);
    expect(timeline.keyframes.slice(0, 4)).toEqual([0, 39, 289, 539]);
    // the last frames do not follow the 512-tick grid, yet stay in order
    expect(timeline.pts.slice(-3).some((pts, i) => pts !== (3675 + i) * 512)).toBe(true);
  });

  it('returns null when ffprobe cannot run', async () => {
    expect(await readFrameTimeline(videoPath, '/nonexistent/ffprobe')).toBeNull();
  });

  it('decodes the same pixels after a seek, forward and reversed, as from frame 0', async () => {
    // frames around two keyframes, and the irregular last frames
    const frames = [1098, 1101, 1232, 1235, 3676, 3677];
    const decode = async (seekFrame: number | null, reverse: boolean, wanted: number[]) => {
      const got: { index: number; rgb: Buffer }[] = [];
      await decodeFrames({
        ffmpeg: { path: ffmpegPath },
        videoPath,
        frames: wanted,
        width: 1276,
        height: 718,
        ...(seekFrame === null
          ? {}
          : {
              seek: {
                seconds: seekSecondsOf(timeline, seekFrame),
                ptsOf: (frame: number) => timeline.pts[frame]!,
                ...(reverse
                  ? { reverse: { stopSeconds: stopSecondsAfter(timeline, wanted.at(-1)!) } }
                  : {}),
              },
            }),
        onFrame: ({ index, rgb }) => {
          got.push({ index, rgb });
        },
      });
      return got;
    };
    const sequential = await decode(null, false, frames);
    expect(sequential.map((f) => f.index)).toEqual(frames);
    const near = frames.slice(0, 4);
    const seekFrame = keyframeAtOrBefore(timeline, near[0]!);
    expect(seekFrame).toBe(1039);
    const forward = await decode(seekFrame, false, near);
    expect(forward.map((f) => f.index)).toEqual(near);
    const reversed = await decode(seekFrame, true, near);
    expect(reversed.map((f) => f.index)).toEqual([...near].reverse());
    const tail = await decode(keyframeAtOrBefore(timeline, 3676), true, [3676, 3677]);
    expect(tail.map((f) => f.index)).toEqual([3677, 3676]);
    for (const decoded of [...forward, ...reversed, ...tail]) {
      const reference = sequential.find((f) => f.index === decoded.index)!;
      expect(decoded.rgb.equals(reference.rgb)).toBe(true);
    }
    // neighbouring frames really differ, so a shifted index would have been caught
    expect(sequential[0]!.rgb.equals(sequential[1]!.rgb)).toBe(false);
  }, 120_000);

  it('refuses a reversed decode that asks for a frame past the end instead of mislabelling', async () => {
    const labels: number[] = [];
    const decoding = decodeFrames({
      ffmpeg: { path: ffmpegPath },
      videoPath,
      frames: [3676, 3677, 3678],
      width: 1276,
      height: 718,
      seek: {
        seconds: seekSecondsOf(timeline, keyframeAtOrBefore(timeline, 3676)),
        ptsOf: (frame: number) => timeline.pts[frame] ?? timeline.pts.at(-1)! + 512,
        reverse: { stopSeconds: null },
      },
      onFrame: ({ index }) => {
        labels.push(index);
      },
    });
    await expect(decoding).rejects.toMatchObject({ code: 'FFMPEG_FAILED' });
  }, 60_000);
});
