// Bytes for a "corrupt video" file that ffmpeg and ffprobe reject the same way every run.
// Random bytes do not: about 1 in 150 random 4 KiB files probes as some other format with no
// video stream ("no video stream" instead of "Invalid data found when processing input").

/** `size` bytes of repeated plain text that no demuxer accepts (checked with ffmpeg 5.1). */
export function notAVideo(size: number): Buffer {
  const line = Buffer.from('not a video: corrupt bytes\n');
  return Buffer.alloc(size, line);
}
