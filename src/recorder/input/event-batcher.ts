// The last stage of the input pipeline (pure): events are collected into batches, handed on when
// a batch is full or when the caller flushes (the flush cadence, a hotkey, a gap, stop).
import type { InputEvent } from './normalize-input-event';

/** Default size at which a batch is handed on at once. */
export const DEFAULT_MAX_BATCH_SIZE = 500;

/** Collects events; returns a batch when it is full or flushed. */
export class EventBatcher {
  private batch: InputEvent[] = [];

  /** @param maxBatchSize a batch this large is handed on at once (default 500, at least 1). */
  constructor(private readonly maxBatchSize = DEFAULT_MAX_BATCH_SIZE) {}

  /** Events waiting for the next batch. */
  get pendingCount(): number {
    return this.batch.length;
  }

  /** Adds an event; returns the full batch when this event filled it, else null. */
  push(event: InputEvent): InputEvent[] | null {
    this.batch.push(event);
    return this.batch.length >= this.maxBatchSize ? this.flush() : null;
  }

  /** The events collected so far (null when none), and a fresh batch. */
  flush(): InputEvent[] | null {
    if (this.batch.length === 0) {
      return null;
    }
    const batch = this.batch;
    this.batch = [];
    return batch;
  }
}
