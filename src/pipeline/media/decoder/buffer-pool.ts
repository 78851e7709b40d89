// Reusable frame buffers for the decoder's transports (docs/keyframes.md §3): a 720p RGB24 frame
// is 2.7 MB, and allocating one per frame costs the allocator and the garbage collector more
// than keeping a few.

/** Reusable frame buffers (all of one size), to spare the allocator and the garbage collector. */
export class FrameBufferPool {
  private readonly free: Buffer[] = [];

  constructor(
    /** Bytes per buffer (width · height · 3). */
    readonly frameBytes: number,
    /** Free buffers kept for reuse at most. */
    private readonly maxFree = 8,
  ) {}

  /** A buffer of frameBytes bytes (contents undefined). */
  acquire(): Buffer {
    return this.free.pop() ?? Buffer.allocUnsafe(this.frameBytes);
  }

  /** Gives a buffer back; the caller must not use it afterwards. */
  release(buffer: Buffer): void {
    if (buffer.length === this.frameBytes && this.free.length < this.maxFree) {
      this.free.push(buffer);
    }
  }
}
