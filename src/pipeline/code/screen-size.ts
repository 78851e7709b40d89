// The recording's screen size: the denominator of every normalised coordinate.
import { invalidCode } from '../../shared/python/code-error';

/** Screen size in the units of the description's coordinates (metadata `screen_width/height`). */
export type ScreenSize = {
  /** Width in pixels (positive integer). */
  width: number;
  /** Height in pixels (positive integer). */
  height: number;
};

// Throws unless both sides are positive integers (the reference would divide by them).
export function assertScreenSize(screen: ScreenSize): void {
  const isValid = (side: number): boolean => Number.isInteger(side) && side > 0;
  if (!isValid(screen.width) || !isValid(screen.height)) {
    throw invalidCode(
      `Screen size must be positive integers, got ${String(screen.width)}×${String(screen.height)}`,
      { width: screen.width, height: screen.height },
    );
  }
}
