// Invariants of §C.0 on a large synthetic stream: ownership, determinism, ordering, ids.
import { describe, expect, it } from 'vitest';
import { reduce } from '../../../src/pipeline/reduce';
import { TEST_CONTEXT } from './event-script';
import { extraOf, ownershipViolations } from './ownership';
import { syntheticRawEvents } from './synthetic';

const EVENTS = syntheticRawEvents(100_000, 7);

describe('reducer invariants on 100,000 synthetic events', () => {
  const result = reduce(EVENTS, TEST_CONTEXT);

  it('owns every event exactly once or lists it as unowned', () => {
    expect(ownershipViolations(result, EVENTS)).toEqual([]);
    expect(result.steps.length).toBeGreaterThan(1000);
  });

  it('is deterministic', () => {
    expect(JSON.stringify(reduce(EVENTS, TEST_CONTEXT))).toBe(JSON.stringify(result));
  });

  it('orders steps by start, with unique ids and consecutive indexes', () => {
    const starts = result.steps.map((step) => step.startMs);
    expect(starts).toEqual([...starts].sort((a, b) => a - b));
    expect(result.steps.map((step) => step.index)).toEqual(result.steps.map((_, i) => i));
    expect(new Set(result.steps.map((step) => step.id)).size).toBe(result.steps.length);
  });

  it('keeps every pre-move before its step and every end at or after its start', () => {
    for (const step of result.steps) {
      expect(step.endMs).toBeGreaterThanOrEqual(step.startMs);
      if (step.preMove !== null) {
        expect(step.preMove.endMs).toBeLessThanOrEqual(step.startMs);
        expect(step.preMove.eventStartIdx).toBeLessThan(step.eventStartIdx ?? 0);
      }
      const [first, last] = extraOf(step).ownedIdx;
      expect(first).toBeLessThanOrEqual(step.eventStartIdx ?? -1);
      expect(last).toBeGreaterThanOrEqual(step.eventStartIdx ?? Infinity);
    }
  });

  it('produces every kind of the mix, each with calls and a description', () => {
    const kinds = new Set(result.steps.map((step) => step.kind));
    expect([...kinds].sort()).toEqual(
      ['click', 'doubleClick', 'dragTo', 'hotkey', 'rightClick', 'scroll', 'write', 'press'].sort(),
    );
    for (const step of result.steps) {
      expect(step.calls.length).toBeGreaterThan(0);
      expect(step.description).not.toBe('');
    }
  });
});
