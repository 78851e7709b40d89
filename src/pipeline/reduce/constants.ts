// Default thresholds of the rule set and their resolution from context and options.
// docs/action-reduction.md §C.2
import { AppError } from '../../shared/errors';
import type { ReduceConstants, ReduceContext } from './types';

/** Semver of the rule set; bump the minor on rule changes, the major on output shape changes. */
export const REDUCER_VERSION = '1.0.0';

/** Defaults of docs/action-reduction.md §C.2 (OS double-click settings override two of them). */
export const DEFAULT_REDUCE_CONSTANTS: Readonly<ReduceConstants> = Object.freeze({
  dragMinPx: 6,
  multiClickGapS: 0.5,
  multiClickRadiusPx: 4,
  maxClickCount: 3,
  longPressS: 1.0,
  scrollEndPadS: 0.2,
  scrollMergeGapS: 3.0,
  scrollMergeRadiusPx: 32,
  typeEndPadS: 0.2,
  hotkeyEndPadS: 0.2,
});

function invalid(message: string, details: Record<string, unknown>): AppError {
  return new AppError('INVALID_PAYLOAD', message, details);
}

// Defaults, then the OS values of the context, then explicit options; all validated.
export function resolveConstants(
  context: ReduceContext,
  options: Partial<ReduceConstants> = {},
): ReduceConstants {
  const resolved: ReduceConstants = { ...DEFAULT_REDUCE_CONSTANTS };
  if (context.doubleClickTimeS !== undefined) {
    resolved.multiClickGapS = context.doubleClickTimeS;
  }
  if (context.doubleClickRadiusPx !== undefined) {
    resolved.multiClickRadiusPx = context.doubleClickRadiusPx;
  }
  for (const [name, value] of Object.entries(options) as [keyof ReduceConstants, unknown][]) {
    if (!(name in DEFAULT_REDUCE_CONSTANTS)) {
      throw invalid(`Unknown reducer constant "${name}"`, { name });
    }
    if (value !== undefined) {
      resolved[name] = value as number;
    }
  }
  for (const [name, value] of Object.entries(resolved)) {
    if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) {
      throw invalid(
        `Reducer constant "${name}" must be a finite number ≥ 0, got ${String(value)}`,
        {
          name,
          value,
        },
      );
    }
  }
  if (!Number.isInteger(resolved.maxClickCount) || resolved.maxClickCount < 1) {
    throw invalid(
      `Reducer constant "maxClickCount" must be an integer ≥ 1, got ${resolved.maxClickCount}`,
      { name: 'maxClickCount', value: resolved.maxClickCount },
    );
  }
  return resolved;
}

// Throws unless the screen is a positive integer size and the scale factor is positive.
export function assertReduceContext(context: ReduceContext): void {
  const { width, height } = context.screen;
  const isSide = (side: number): boolean => Number.isInteger(side) && side > 0;
  if (!isSide(width) || !isSide(height)) {
    throw invalid(
      `context.screen must be positive integers, got ${String(width)}×${String(height)}`,
      { width, height },
    );
  }
  if (!Number.isFinite(context.scaleFactor) || context.scaleFactor <= 0) {
    throw invalid(`context.scaleFactor must be > 0, got ${String(context.scaleFactor)}`, {
      scaleFactor: context.scaleFactor,
    });
  }
}
