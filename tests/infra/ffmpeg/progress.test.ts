// Output parsers on output recorded from Debian's ffmpeg 5.1.9 (x11grab, 2 s, the recorder's
// arguments): fixtures/x11grab-progress.txt is its stdout, fixtures/x11grab-stderr.txt its stderr.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { LineSplitter } from '../../../src/infra/lines';
import {
  ProgressParser,
  emptyFinalCounts,
  parseFinalCountsLine,
  parseInputStartLine,
  parseStatsLine,
} from '../../../src/infra/ffmpeg/progress';
import type { FfmpegProgress } from '../../../src/infra/ffmpeg/progress';

const FIXTURES = path.join(import.meta.dirname, 'fixtures');

async function fixtureLines(name: string): Promise<string[]> {
  const splitter = new LineSplitter();
  return [...splitter.push(await readFile(path.join(FIXTURES, name), 'utf8')), ...splitter.flush()];
}

describe('ProgressParser', () => {
  it('turns the recorded -progress stream into one record per block', async () => {
    const parser = new ProgressParser();
    const blocks: FfmpegProgress[] = [];
    for (const line of await fixtureLines('x11grab-progress.txt')) {
      const block = parser.push(line);
      if (block) {
        blocks.push(block);
      }
    }
    expect(blocks.map((b) => [b.frame, b.fps, b.outTimeMs, b.isFinal])).toEqual([
      [1, 0, 0, false],
      [18, 0, 433.398, false],
      [34, 31.93, 966.732, false],
      [49, 31.2, 1466.732, false],
      [60, 29.92, 1966.732, true],
    ]);
    expect(blocks[0]).toEqual({
      frame: 1,
      fps: 0,
      bitrateKbps: null,
      totalSizeBytes: 754,
      outTimeMs: 0,
      dupFrames: 0,
      dropFrames: 0,
      speed: 0,
      isFinal: false,
    });
    expect(blocks[4]).toMatchObject({ bitrateKbps: 39.3, totalSizeBytes: 9650, speed: 0.981 });
  });

  it('reads dup/drop counters and treats N/A and negative times as unknown / zero', () => {
    const parser = new ProgressParser();
    const lines = [
      'frame=300',
      'fps=N/A',
      'out_time_us=-33333',
      'dup_frames=4',
      'drop_frames=2',
      'speed=N/A',
      'progress=continue',
    ];
    const results = lines.map((line) => parser.push(line));
    expect(results.slice(0, -1).every((r) => r === null)).toBe(true);
    expect(results.at(-1)).toEqual({
      frame: 300,
      fps: null,
      bitrateKbps: null,
      totalSizeBytes: null,
      outTimeMs: 0,
      dupFrames: 4,
      dropFrames: 2,
      speed: null,
      isFinal: false,
    });
    // the next block starts empty
    expect(parser.push('progress=end')).toMatchObject({ frame: 0, dupFrames: 0, isFinal: true });
    expect(parser.push('garbage without equals')).toBeNull();
  });
});

describe('stderr parsers', () => {
  it('finds the first frame capture stamp in the recorded input header', async () => {
    const lines = await fixtureLines('x11grab-stderr.txt');
    const starts = lines.map(parseInputStartLine).filter((s) => s !== null);
    expect(starts).toEqual([{ kind: 'start', seconds: 1796048441.5129 }]);
    expect(parseInputStartLine('  Duration: N/A, bitrate: N/A')).toEqual({ kind: 'none' });
    expect(
      parseInputStartLine('  Duration: 00:00:02.00, start: 0.000000, bitrate: 39 kb/s'),
    ).toEqual({ kind: 'start', seconds: 0 });
    expect(parseInputStartLine('Stream mapping:')).toBeNull();
  });

  it('collects the verbose end-of-run counts', async () => {
    const counts = emptyFinalCounts();
    const matched = (await fixtureLines('x11grab-stderr.txt')).filter((line) =>
      parseFinalCountsLine(line, counts),
    );
    expect(matched).toHaveLength(3);
    expect(counts).toEqual({
      inputFrames: 62,
      filterDroppedFrames: 2,
      filterDuplicatedFrames: 1,
      encodedFrames: 60,
    });
  });

  it('parses interactive stats lines, including the final one', async () => {
    const final = (await fixtureLines('x11grab-stderr.txt')).find((l) => l.startsWith('frame='));
    expect(parseStatsLine(final ?? '')).toEqual({
      frame: 60,
      fps: 30,
      bitrateKbps: 39.3,
      totalSizeBytes: 9 * 1024,
      outTimeMs: 1960,
      dupFrames: 0,
      dropFrames: 0,
      speed: 0.981,
      isFinal: true,
    });
    // recorded from `-r 30` without the fps filter: ffmpeg's own dup/drop counters
    expect(
      parseStatsLine(
        'frame=   30 fps=0.0 q=-1.0 size=       5kB time=00:00:00.96 bitrate=  44.8kbits/s dup=4 drop=2 speed=1.04x    ',
      ),
    ).toMatchObject({ frame: 30, dupFrames: 4, dropFrames: 2, speed: 1.04, isFinal: false });
    expect(parseStatsLine('[x11grab @ 0x1] Cannot open display :999.0, error 1.')).toBeNull();
  });
});
