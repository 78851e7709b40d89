// The app's own input in a recording: the click or key on the app's window that stopped or paused
// it (src/recorder/session.ts excludeAppGesture stores an `app-input` mark over it).
import type { RawEvent } from '../../shared/domain';
import type { MarkRecord } from '../../store';

/**
 * The events left after the app's own input: the click or key that stopped or paused a recording
 * from the app's window (an `app-input` mark, src/recorder/session.ts excludeAppGesture) is never a
 * step. The raw events stay stored; only the reduction skips them.
 */
export function withoutAppInput(events: RawEvent[], marks: readonly MarkRecord[]): RawEvent[] {
  const spans = marks.filter((m) => m.kind === 'app-input' && m.endMs !== null);
  if (!spans.length) {
    return events;
  }
  return events.filter((e) => !spans.some((m) => e.tMs >= m.tMs && e.tMs <= (m.endMs as number)));
}
