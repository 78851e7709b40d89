// The frame transports with real pipes: stdout-style chunks of any size and a real named pipe
// are cut into whole frames, a sink that says stop ends the reading, and an unfinished last
// frame is reported by its byte count.
import { createWriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  openFrameFifo,
  readFramesFromFifo,
} from '../../../../src/pipeline/media/decoder/fifo-transport';
import type { FrameSink } from '../../../../src/pipeline/media/decoder/frame-sink';
import { readFramesFromStream } from '../../../../src/pipeline/media/decoder/stdout-transport';

const FRAME_BYTES = 12;

/** 3 whole frames (bytes 0..35) and `extra` bytes of a fourth. */
function frameBytes(extra = 0): Buffer {
  return Buffer.from(Array.from({ length: 3 * FRAME_BYTES + extra }, (_, i) => i));
}

function collectingSink(stopAfter = Infinity): {
  sink: FrameSink;
  frames: Buffer[];
  ready: number[];
} {
  const frames: Buffer[] = [];
  const ready: number[] = [];
  const sink: FrameSink = {
    frameBytes: FRAME_BYTES,
    acquire: () => Buffer.alloc(FRAME_BYTES),
    onData: () => ready.push(frames.length),
    deliver: async (frame) => {
      await new Promise((resolve) => setImmediate(resolve));
      frames.push(Buffer.from(frame));
      return frames.length >= stopAfter;
    },
  };
  return { sink, frames, ready };
}

const expected = (n: number): Buffer[] =>
  Array.from({ length: n }, (_, k) =>
    frameBytes().subarray(k * FRAME_BYTES, (k + 1) * FRAME_BYTES),
  );

describe('readFramesFromStream', () => {
  it('joins chunks of odd sizes into frames and reports the leftover bytes', async () => {
    const data = frameBytes(5);
    const chunks = [data.subarray(0, 5), data.subarray(5, 30), data.subarray(30)];
    const { sink, frames, ready } = collectingSink();
    expect(await readFramesFromStream(Readable.from(chunks), sink)).toBe(5);
    expect(frames).toEqual(expected(3));
    expect(ready[0]).toBe(0);
  });

  it('stops when the sink says so', async () => {
    const { sink, frames } = collectingSink(2);
    expect(await readFramesFromStream(Readable.from([frameBytes(5)]), sink)).toBe(0);
    expect(frames).toEqual(expected(2));
  });
});

describe.skipIf(process.platform === 'win32')('named-pipe transport', () => {
  let dir = '';
  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'fifo-transport-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  async function writeAndRead(data: Buffer, stopAfter = Infinity) {
    const sub = await mkdtemp(path.join(dir, 'run-'));
    const fifo = await openFrameFifo(sub);
    expect(fifo).not.toBeNull();
    const { sink, frames } = collectingSink(stopAfter);
    const reading = readFramesFromFifo(fifo!, sink);
    const writer = createWriteStream(fifo!.path);
    writer.on('error', () => undefined); // the reader may close first (stop)
    await new Promise<void>((resolve) => {
      writer.write(data.subarray(0, 7));
      writer.end(data.subarray(7), () => resolve());
    });
    // as after ffmpeg's exit: our own write end goes, so the pipe reports its end
    fifo!.closeWriter();
    return { leftover: await reading, frames };
  }

  it('reads whole frames and reports an unfinished last one', async () => {
    const { leftover, frames } = await writeAndRead(frameBytes(5));
    expect(frames).toEqual(expected(3));
    expect(leftover).toBe(5);
  });

  it('ends the reading when the sink says stop', async () => {
    const { leftover, frames } = await writeAndRead(frameBytes(), 1);
    expect(frames).toEqual(expected(1));
    expect(leftover).toBe(0);
  });
});
