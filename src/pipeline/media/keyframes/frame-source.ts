// The frame source of an extraction (docs/keyframes.md §6 step 2): the MP4's own sample index
// when it describes the video the caller probed (its parts are then piped to ffmpeg), else the
// ffprobe frame timeline (decodes seek), else neither (one decode from frame 0).
import { readFrameTimeline } from '../frame-timeline';
import type { FrameTimeline } from '../frame-timeline';
import { readMp4VideoIndex } from '../mp4-index';
import type { Mp4VideoIndex } from '../mp4-index';
import type { ExtractKeyframesOptions } from './types';

/** Where the decodes find frames: at most one of the two is set. */
export type FrameSource = {
  index: Mp4VideoIndex | null;
  timeline: FrameTimeline | null;
};

// Reads the MP4 index (unless directRead is false), else the ffprobe timeline (with ffprobe);
// nothing when no frame is to be decoded.
export async function readFrameSource(
  options: ExtractKeyframesOptions,
  hasFramesToDecode: boolean,
): Promise<FrameSource> {
  const index =
    options.directRead !== false && hasFramesToDecode ? await usableIndex(options) : null;
  const timeline =
    index === null && options.ffprobePath && hasFramesToDecode
      ? await readFrameTimeline(options.videoPath, options.ffprobePath)
      : null;
  return { index, timeline };
}

/** The MP4 index when it describes the video the caller probed; null otherwise. */
async function usableIndex(options: ExtractKeyframesOptions): Promise<Mp4VideoIndex | null> {
  const { index } = await readMp4VideoIndex(options.videoPath);
  if (index === null || index.width !== options.width || index.height !== options.height) {
    return null;
  }
  return index;
}
