// Decode units (docs/keyframes.md §6 step 3): something that wants some frames of the video and
// is fed them by a decode; a fixed unit wants one frame (case B, a fixed terminate, or a
// prefetched reference). Similarity searches are units too (search-unit.ts).

/** Something that wants some frames of the video, in ascending order within one decode. */
export interface DecodeUnit {
  /** Wanted frames, ascending, unique, inside the video. */
  readonly frames: readonly number[];
  /** A wanted frame, decoded (frames arrive in ascending order). */
  onFrame(frame: number, rgb: Buffer): void;
  /** True when no further frame can change this unit's result. */
  isDone(): boolean;
  /** True when the unit usually stops well before its last frame (a forward search). */
  readonly isOpenEnded: boolean;
  /** True while the unit keeps the pixels of `frame`. */
  holds(frame: number): boolean;
}

/** A single frame (case B, fixed terminate, or a prefetched reference). */
export class FixedUnit implements DecodeUnit {
  readonly frames: number[];
  readonly isOpenEnded = false;
  private rgb: Buffer | null = null;
  private isDecoded = false;

  constructor(
    private readonly frame: number,
    frameLimit: number,
    /** Sees the pixels; returns true to keep them (the chosen frame), false to let them go. */
    private readonly onDecoded: (rgb: Buffer) => boolean,
  ) {
    this.frames = frame >= 0 && frame < frameLimit ? [frame] : [];
  }

  onFrame(frame: number, rgb: Buffer): void {
    if (frame === this.frame) {
      this.isDecoded = true;
      this.rgb = this.onDecoded(rgb) ? rgb : null;
    }
  }

  isDone(): boolean {
    return this.isDecoded || this.frames.length === 0;
  }

  holds(frame: number): boolean {
    return frame === this.frame && this.rgb !== null;
  }

  pixels(frame: number): Buffer | undefined {
    return frame === this.frame ? (this.rgb ?? undefined) : undefined;
  }
}
