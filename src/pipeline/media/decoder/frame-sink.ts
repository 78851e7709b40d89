// What a frame transport (named pipe or stdout) hands its bytes to: the decoder, which owns the
// buffers, readiness and the frame callback.

/** The receiving end of a frame transport. */
export type FrameSink = {
  /** Bytes per frame (width · height · 3). */
  frameBytes: number;
  /** A buffer of frameBytes bytes for the next frame (from the pool, or new). */
  acquire: () => Buffer;
  /** Frame bytes arrived: ffmpeg is running (readiness, if its banner line was missed). */
  onData: () => void;
  /** Hands one full frame on; resolves true when reading must stop. Never rejects. */
  deliver: (frame: Buffer) => Promise<boolean>;
};
