// How a decode that ran to ffmpeg's exit ended (pure): the frames the video did not have, or the
// coded error (docs/architecture.md §5) that the exit status, a partial last frame or a short
// reversed decode mean.
import { AppError } from '../../../shared/errors';

/** What the decoder knows once ffmpeg has exited and the transport is drained. */
export type DecodeExitFacts = {
  /** ffmpeg's exit code, or null when a signal ended it. */
  code: number | null;
  /** The signal that ended ffmpeg, or null. */
  signal: NodeJS.Signals | null;
  ffmpegPath: string;
  videoPath: string;
  /** ffmpeg had opened the input (else the file itself is the problem). */
  isReady: boolean;
  /** The requested frames, ascending. */
  frames: readonly number[];
  /** Frames delivered to the callback. */
  decodedCount: number;
  /** Bytes of an unfinished last frame. */
  pendingBytes: number;
  /** Bytes per frame. */
  frameBytes: number;
  /** The frames came in descending order (seek.reverse). */
  isReversed: boolean;
  /** The last lines of ffmpeg's stderr ('' when none). */
  stderrTail: string;
};

// The frames the video did not have, or the error the decode ended with. (A decode stopped on
// request or failed by us is settled before this.)
export function decodeExitOutcome(
  facts: DecodeExitFacts,
): { missingFrames: number[] } | { error: AppError } {
  const { videoPath, ffmpegPath, stderrTail } = facts;
  const tailSuffix = stderrTail === '' ? '.' : `:\n${stderrTail}`;
  if (facts.code !== 0) {
    const status = facts.code === null ? `signal ${facts.signal}` : `exit code ${facts.code}`;
    const details = {
      ffmpegPath,
      videoPath,
      exitCode: facts.code,
      signal: facts.signal,
      stderrTail,
    };
    // before readiness ffmpeg could not even open the input: the file is the problem
    return {
      error: facts.isReady
        ? new AppError(
            'FFMPEG_FAILED',
            `ffmpeg failed while decoding '${videoPath}' (${status})${tailSuffix}`,
            details,
          )
        : new AppError(
            'VIDEO_UNREADABLE',
            `Cannot decode video '${videoPath}': ffmpeg failed with ${status}${tailSuffix}`,
            details,
          ),
    };
  }
  if (facts.pendingBytes !== 0) {
    return {
      error: new AppError(
        'FFMPEG_FAILED',
        `ffmpeg ended '${videoPath}' with a partial frame (${facts.pendingBytes} of ` +
          `${facts.frameBytes} bytes)${tailSuffix}`,
        { ffmpegPath, videoPath, stderrTail },
      ),
    };
  }
  if (facts.isReversed && facts.decodedCount < facts.frames.length) {
    // reversed frames are labelled from the top of the list: a frame that did not come means
    // every label was off by its place, so nothing of this decode can be trusted
    return {
      error: new AppError(
        'FFMPEG_FAILED',
        `a reversed decode of '${videoPath}' delivered ${facts.decodedCount} of ` +
          `${facts.frames.length} frames; request only frames the video has (see its timeline)`,
        { ffmpegPath, videoPath, stderrTail },
      ),
    };
  }
  return { missingFrames: facts.frames.slice(facts.decodedCount) };
}
