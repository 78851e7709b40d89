// decodeExitOutcome: which code a finished ffmpeg's exit status means, and the missing frames.
import { describe, expect, it } from 'vitest';
import { decodeExitOutcome } from '../../../../src/pipeline/media/decoder/exit-outcome';
import type { DecodeExitFacts } from '../../../../src/pipeline/media/decoder/exit-outcome';
import { AppError } from '../../../../src/shared/errors';

const FACTS: DecodeExitFacts = {
  code: 0,
  signal: null,
  ffmpegPath: '/usr/bin/ffmpeg',
  videoPath: '/v/clip.mp4',
  isReady: true,
  frames: [3, 5, 8],
  decodedCount: 3,
  pendingBytes: 0,
  frameBytes: 12,
  isReversed: false,
  stderrTail: '',
};

function errorOf(facts: Partial<DecodeExitFacts>): AppError {
  const outcome = decodeExitOutcome({ ...FACTS, ...facts });
  if (!('error' in outcome)) {
    throw new Error(`expected an error, got ${JSON.stringify(outcome)}`);
  }
  expect(outcome.error).toBeInstanceOf(AppError);
  return outcome.error;
}

describe('decodeExitOutcome', () => {
  it('reports the frames the video did not have after a clean exit', () => {
    expect(decodeExitOutcome(FACTS)).toEqual({ missingFrames: [] });
    expect(decodeExitOutcome({ ...FACTS, decodedCount: 1 })).toEqual({ missingFrames: [5, 8] });
  });

  it('blames the file before readiness and ffmpeg after it, quoting the tail', () => {
    const unreadable = errorOf({ code: 1, isReady: false, stderrTail: 'moov atom not found' });
    expect(unreadable.code).toBe('VIDEO_UNREADABLE');
    expect(unreadable.message).toBe(
      "Cannot decode video '/v/clip.mp4': ffmpeg failed with exit code 1:\nmoov atom not found",
    );
    const failed = errorOf({ code: null, signal: 'SIGSEGV' });
    expect(failed.code).toBe('FFMPEG_FAILED');
    expect(failed.message).toBe("ffmpeg failed while decoding '/v/clip.mp4' (signal SIGSEGV).");
    expect(failed.details).toMatchObject({ exitCode: null, signal: 'SIGSEGV' });
  });

  it('refuses a partial last frame and a short reversed decode', () => {
    expect(errorOf({ pendingBytes: 5 }).message).toContain('partial frame (5 of 12 bytes)');
    const reversed = errorOf({ isReversed: true, decodedCount: 2 });
    expect(reversed.code).toBe('FFMPEG_FAILED');
    expect(reversed.message).toContain('delivered 2 of 3 frames');
  });
});
