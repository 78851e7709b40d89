// Reading a progressive MP4's video sample index ourselves and piping chosen parts of it to
// ffmpeg as Matroska: the fixture's index agrees with ffprobe's packet listing, the piped decode
// gives the same pixels as decoding the file, and files the pipe cannot serve exactly (fragmented,
// open GOPs, keyframes that are not IDR pictures, not MP4) are refused or fall back to seeking.
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readAgentNetFolder } from '../../../src/pipeline/io/agentnet-read';
import { decodeFrames } from '../../../src/pipeline/media/frame-decoder';
import { readFrameTimeline } from '../../../src/pipeline/media/frame-timeline';
import { extractKeyframes } from '../../../src/pipeline/media/keyframes-extract';
import type { ExtractKeyframesOptions } from '../../../src/pipeline/media/keyframes-extract';
import { mkvClusters, mkvHeader } from '../../../src/pipeline/media/mkv-stream';
import { runsStartWithIdr, sampleRunFor, streamOfRuns } from '../../../src/pipeline/media/mp4-feed';
import { keyframeAtOrBefore } from '../../../src/pipeline/media/frame-timeline';
import {
  firstSliceType,
  isReferencePicture,
  readMp4VideoIndex,
} from '../../../src/pipeline/media/mp4-index';
import type { Mp4VideoIndex } from '../../../src/pipeline/media/mp4-index';
import { runCommand } from '../../../src/infra/run-command';
import { resolveFfmpeg } from '../../../src/infra/ffmpeg/binary';
import { FIXTURE_DIR } from '../../helpers/paths';

let ffmpegPath = '';
let ffprobePath: string | null = null;
let tempDir = '';
let fixtureVideo = '';
let fixtureIndex: Mp4VideoIndex;

async function ffmpeg(args: string[]): Promise<void> {
  const result = await runCommand(ffmpegPath, ['-v', 'error', '-nostdin', '-y', ...args], {
    timeoutMs: 120_000,
  });
  expect(result.code, result.stderr).toBe(0);
}

/** A 4 s 320×240 test pattern encoded with libx264 and the given extra arguments. */
async function synthetic(name: string, encoderArgs: string[]): Promise<string> {
  const out = path.join(tempDir, name);
  await ffmpeg([
    ...['-f', 'lavfi', '-i', 'testsrc2=size=320x240:rate=30', '-t', '4'],
    ...['-c:v', 'libx264', '-pix_fmt', 'yuv420p', ...encoderArgs, out],
  ]);
  return out;
}

/** ffprobe's packets of the first video stream in decoding order: pts and key flag. */
async function probePackets(video: string): Promise<{ pts: number; isKey: boolean }[]> {
  const result = await runCommand(
    ffprobePath!,
    [
      ...['-v', 'error', '-select_streams', 'v:0', '-show_entries', 'packet=pts,flags'],
      ...['-of', 'csv=p=0', video],
    ],
    { timeoutMs: 60_000 },
  );
  expect(result.code).toBe(0);
  return result.stdout
    .trim()
    .split('\n')
    .map((line) => {
      const [pts, flags] = line.split(',');
      return { pts: Number(pts), isKey: (flags ?? '').includes('K') };
    });
}

/** Frame index n of each packet (decoding order): the rank of its pts. */
function framesOfPackets(packets: { pts: number }[]): (number | undefined)[] {
  const ranks = new Map(
    packets
      .map((packet) => packet.pts)
      .sort((a, b) => a - b)
      .map((pts, frame) => [pts, frame]),
  );
  return packets.map((packet) => ranks.get(packet.pts));
}

beforeAll(async () => {
  const binary = await resolveFfmpeg();
  ffmpegPath = binary.path;
  ffprobePath = binary.ffprobePath;
  tempDir = await mkdtemp(path.join(os.tmpdir(), 'cua-mp4-index-'));
  fixtureVideo = (await readAgentNetFolder(FIXTURE_DIR)).videoPath;
  const result = await readMp4VideoIndex(fixtureVideo);
  expect(result.reason).toBeUndefined();
  fixtureIndex = result.index!;
}, 60_000);

afterAll(async () => {
  await rm(tempDir, { recursive: true, force: true });
});

describe('readMp4VideoIndex on the fixture', () => {
  it('finds every sample, the frame size and the avcC of the H.264 track', () => {
    expect(fixtureIndex.offsets).toHaveLength(3678);
    expect(fixtureIndex.sizes).toHaveLength(3678);
    expect([fixtureIndex.width, fixtureIndex.height]).toEqual([1276, 718]);
    expect(fixtureIndex.nalLengthSize).toBe(4);
    // AVCDecoderConfigurationRecord: version 1, then profile 100 (High)
    expect([...fixtureIndex.avcConfig.subarray(0, 2)]).toEqual([1, 100]);
  });

  it('numbers frames and keyframes exactly as ffprobe lists the packets', async () => {
    const packets = await probePackets(fixtureVideo);
    expect(packets).toHaveLength(fixtureIndex.frameOfSample.length);
    expect(framesOfPackets(packets)).toEqual(fixtureIndex.frameOfSample);
    expect(packets.map((packet) => packet.isKey)).toEqual(fixtureIndex.isSync);
    const timeline = await readFrameTimeline(fixtureVideo, ffprobePath!);
    expect(fixtureIndex.keyframes).toEqual(timeline!.keyframes);
    fixtureIndex.sampleOfFrame.forEach((sample, frame) => {
      expect(fixtureIndex.frameOfSample[sample]).toBe(frame);
    });
  });

  it('points at the bytes ffmpeg reads: every keyframe sample holds an IDR slice', async () => {
    expect(await runsStartWithIdr(fixtureVideo, fixtureIndex, fixtureIndex.keyframes)).toBe(true);
    // the sample after a keyframe in decoding order is a non-IDR slice
    const file = await readFile(fixtureVideo);
    const sample = (fixtureIndex.sampleOfFrame[789] as number) + 1;
    const offset = fixtureIndex.offsets[sample] as number;
    const bytes = file.subarray(offset, offset + (fixtureIndex.sizes[sample] as number));
    expect(firstSliceType(bytes, 4)).toBe(1);
    // B-pyramid: the middle B of each BBBP group is a reference, the outer two are not
    const isReference = fixtureIndex.offsets.map((at, i) =>
      isReferencePicture(file.subarray(at, at + (fixtureIndex.sizes[i] as number)), 4),
    );
    const nonReference = isReference.filter((flag) => !flag).length;
    expect(nonReference).toBeGreaterThan(1500);
    expect(nonReference).toBeLessThan(2000);
    expect(fixtureIndex.isSync.every((isSync, i) => !isSync || isReference[i])).toBe(true);
  });

  it('a part starts at the keyframe before its first frame and covers its B-frames', () => {
    expect(keyframeAtOrBefore(fixtureIndex, 0)).toBe(0);
    expect(keyframeAtOrBefore(fixtureIndex, 800)).toBe(789);
    const run = sampleRunFor(fixtureIndex, 800, 805);
    expect(run.firstFrame).toBe(789);
    expect(run.firstSample).toBe(fixtureIndex.sampleOfFrame[789]);
    // every frame up to 805 is decoded within the part
    for (let frame = 789; frame <= 805; frame += 1) {
      const sample = fixtureIndex.sampleOfFrame[frame] as number;
      expect(sample).toBeGreaterThanOrEqual(run.firstSample);
      expect(sample).toBeLessThanOrEqual(run.lastSample);
    }
  });
});

describe('piped decoding', () => {
  it('decodes parts sent as Matroska to the same pixels as ffmpeg reading the file', async () => {
    const frames = [0, 1, 2, 40, 795, 801, 805, 1288, 1300, 3677];
    const runs = [
      sampleRunFor(fixtureIndex, 0, 40),
      sampleRunFor(fixtureIndex, 795, 805),
      sampleRunFor(fixtureIndex, 1288, 1300),
      sampleRunFor(fixtureIndex, 3677, 3677),
    ];
    const piped = new Map<number, Buffer>();
    const stream = streamOfRuns(fixtureVideo, fixtureIndex, runs, (frame) =>
      frames.includes(frame),
    );
    const result = await decodeFrames({
      ffmpeg: { path: ffmpegPath },
      videoPath: fixtureVideo,
      frames,
      width: 1276,
      height: 718,
      stream,
      onFrame: ({ index, rgb }) => {
        piped.set(index, rgb);
      },
    });
    expect(result.missingFrames).toEqual([]);
    // unwanted B-frames nothing refers to were left out (the fixture's B-pyramid has many)
    expect(stream.skippedSamples).toBeGreaterThan(10);
    const direct = new Map<number, Buffer>();
    await decodeFrames({
      ffmpeg: { path: ffmpegPath },
      videoPath: fixtureVideo,
      frames,
      width: 1276,
      height: 718,
      onFrame: ({ index, rgb }) => {
        direct.set(index, rgb);
      },
    });
    expect([...piped.keys()]).toEqual(frames);
    for (const frame of frames) {
      expect(piped.get(frame)!.equals(direct.get(frame)!), `frame ${frame}`).toBe(true);
    }
  }, 120_000);

  it('stopping early ends ffmpeg and the feed', async () => {
    const seen: number[] = [];
    const result = await decodeFrames({
      ffmpeg: { path: ffmpegPath },
      videoPath: fixtureVideo,
      frames: [100, 200, 3000],
      width: 1276,
      height: 718,
      stream: streamOfRuns(
        fixtureVideo,
        fixtureIndex,
        [sampleRunFor(fixtureIndex, 100, 200), sampleRunFor(fixtureIndex, 3000, 3000)],
        () => true,
      ),
      onFrame: ({ index }) => {
        seen.push(index);
        return 'stop';
      },
    });
    expect(seen).toEqual([100]);
    expect(result.isStoppedEarly).toBe(true);
  }, 60_000);
});

describe('mkv-stream', () => {
  it('writes an EBML header, a live segment and the AVC track', () => {
    const header = mkvHeader({ avcConfig: Buffer.from([1, 2, 3]), width: 320, height: 240 });
    expect([...header.subarray(0, 4)]).toEqual([0x1a, 0x45, 0xdf, 0xa3]);
    expect(header.includes(Buffer.from('V_MPEG4/ISO/AVC'))).toBe(true);
    // segment of unknown size
    const segment = header.indexOf(Buffer.from([0x18, 0x53, 0x80, 0x67]));
    expect([...header.subarray(segment + 4, segment + 12)]).toEqual([
      0x01, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
    ]);
  });

  it('starts a new cluster where a timestamp leaves the 16-bit range of the cluster', () => {
    const data = Buffer.from([0, 0, 0, 1, 0x65]);
    const one = mkvClusters([
      { timestamp: 10, isKey: true, data },
      { timestamp: 12, isKey: false, data },
      { timestamp: 11, isKey: false, data },
    ]);
    expect(one).toHaveLength(1);
    const cluster = one[0]!;
    // cluster id, 8-byte size, Timestamp element (id, 8-byte size, value 10)
    expect([...cluster.subarray(0, 4)]).toEqual([0x1f, 0x43, 0xb6, 0x75]);
    expect(Number(cluster.readBigUInt64BE(4) & 0xffffffffffffffn)).toBe(cluster.length - 12);
    expect([cluster[12], cluster[21]]).toEqual([0xe7, 10]);
    // three SimpleBlocks: track 1, timestamp relative to 10, keyframe flag, the sample's bytes
    const blocks = [22, 40, 58].map((at) => ({
      id: cluster[at],
      track: cluster[at + 9],
      relative: cluster.readInt16BE(at + 10),
      flags: cluster[at + 12],
      data: cluster.subarray(at + 13, at + 18),
    }));
    expect(blocks.map(({ id, track, relative, flags }) => [id, track, relative, flags])).toEqual([
      [0xa3, 0x81, 0, 0x80],
      [0xa3, 0x81, 2, 0],
      [0xa3, 0x81, 1, 0],
    ]);
    expect(blocks.every((block) => block.data.equals(data))).toBe(true);
    expect(cluster.length).toBe(76);
    const split = mkvClusters([
      { timestamp: 0, isKey: true, data },
      { timestamp: 40_000, isKey: false, data },
    ]);
    expect(split).toHaveLength(2);
  });
});

describe('files the pipe does not serve', () => {
  const extract = (videoPath: string, extra: Partial<ExtractKeyframesOptions> = {}) =>
    extractKeyframes({
      videoPath,
      ffmpegPath,
      ffprobePath,
      videoStartS: 0,
      fps: 30,
      frameCount: 120,
      width: 320,
      height: 240,
      // a fixed frame (start − 0.5 s = frame 21) and a backward search over frames 45…66
      steps: [
        { action: 'press', preMoveStartS: null, pressStartS: 1.2, endS: 1.3 },
        { action: 'click', preMoveStartS: 1.5, pressStartS: 2.7, endS: 2.8 },
      ],
      ...extra,
    });
  const summary = (result: Awaited<ReturnType<typeof extract>>) =>
    [...result.steps, result.terminate!].map((k) => [k.frame, k.rgb?.toString('base64')]);

  const FRAGMENTED = ['-g', '30', '-movflags', '+frag_keyframe+empty_moov+default_base_moof'];

  it.each([
    [
      'progressive, moov first, no B-frames (a remuxed recording)',
      ['-preset', 'ultrafast', '-g', '30', '-movflags', '+faststart'],
    ],
    ["fragmented (the recorder's crash-safe layout)", FRAGMENTED],
  ])(
    '%s: piped, with the seeking result',
    async (name, encoderArgs) => {
      const video = await synthetic(`${name.split(' ')[0]!.replace(',', '')}.mp4`, encoderArgs);
      const { index, reason } = await readMp4VideoIndex(video);
      expect(reason).toBeUndefined();
      expect(index!.keyframes).toEqual([0, 30, 60, 90]);
      const packets = await probePackets(video);
      expect(packets.map((packet) => packet.isKey)).toEqual(index!.isSync);
      expect(framesOfPackets(packets)).toEqual(index!.frameOfSample);
      const piped = await extract(video);
      expect(piped.stats.frameSource).toBe('mp4-index');
      const seeking = await extract(video, { directRead: false });
      expect(seeking.stats.frameSource).toBe('ffprobe-timeline');
      expect(summary(piped)).toEqual(summary(seeking));
    },
    120_000,
  );

  it('a fragmented MP4 cut short (a crash) is refused and decoded with the ffprobe timeline', async () => {
    const whole = await readFile(await synthetic('whole.mp4', FRAGMENTED));
    const video = path.join(tempDir, 'cut.mp4');
    await writeFile(video, whole.subarray(0, Math.floor(whole.length * 0.8)));
    expect(await readMp4VideoIndex(video)).toEqual({ index: null, reason: 'truncated fragment' });
    const result = await extract(video, { frameCount: 96 });
    expect(result.stats.frameSource).toBe('ffprobe-timeline');
    expect(result.steps[0]!.frame).toBe(21);
  }, 120_000);

  it('an open GOP (frames decoded after a keyframe but shown before it) is refused', async () => {
    const video = await synthetic('open-gop.mp4', [
      ...['-bf', '3', '-x264-params', 'keyint=30:open-gop=1:scenecut=0'],
    ]);
    const { index, reason } = await readMp4VideoIndex(video);
    expect(index).toBeNull();
    expect(reason).toMatch(/^open GOP at frame \d+$/);
  }, 120_000);

  it('a keyframe that is not an IDR picture makes the extraction seek instead', async () => {
    // mark sample 16 (a P picture, frame 15) as a sync sample instead of sample 31
    const source = await synthetic('idr.mp4', [
      ...['-bf', '0', '-g', '30', '-x264-params', 'scenecut=0'],
    ]);
    const bytes = await readFile(source);
    const stss = bytes.indexOf(Buffer.from('stss'));
    expect(stss).toBeGreaterThan(0);
    expect(bytes.readUInt32BE(stss + 8)).toBe(4); // 4 entries: samples 1, 31, 61, 91
    expect(bytes.readUInt32BE(stss + 16)).toBe(31);
    bytes.writeUInt32BE(16, stss + 16);
    const video = path.join(tempDir, 'not-idr.mp4');
    await writeFile(video, bytes);
    const { index } = await readMp4VideoIndex(video);
    expect(index?.keyframes).toEqual([0, 15, 60, 90]);
    expect(await runsStartWithIdr(video, index!, [15])).toBe(false);
    // frame 21 would be piped from frame 15: the extraction seeks instead
    const result = await extract(video);
    expect(result.stats.frameSource).toBe('ffprobe-timeline');
  }, 120_000);

  it('a file that is not an MP4, or is missing, gives no index and a reason', async () => {
    const junk = path.join(tempDir, 'junk.mp4');
    await writeFile(junk, Buffer.from('this is not a video at all'));
    expect((await readMp4VideoIndex(junk)).index).toBeNull();
    const missing = await readMp4VideoIndex(path.join(tempDir, 'missing.mp4'));
    expect(missing.index).toBeNull();
    expect(missing.reason).toMatch(/^cannot open/);
    const matroska = path.join(tempDir, 'video.mkv');
    await ffmpeg([
      '-i',
      await synthetic('plain.mp4', ['-preset', 'ultrafast']),
      '-c',
      'copy',
      matroska,
    ]);
    expect((await readMp4VideoIndex(matroska)).index).toBeNull();
  }, 60_000);
});
