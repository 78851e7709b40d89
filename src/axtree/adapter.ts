// The platform-neutral accessibility port: Linux implements it over AT-SPI (D-Bus), macOS and
// Windows over a native helper speaking JSON lines (platform/native-helper.ts).
import type { AxBudget } from './budgets';
import type { AxElementRecord, AxFocusEvent, AxSnapshot } from './model';

/**
 * Something an accessibility tree snapshot shows may have changed (children added or removed, a
 * name or a state), as the platform reported it (docs/platform-linux.md §4).
 */
export type AxContentChange = {
  /** When it was observed, session clock ms. */
  tMs: number;
  /** True when it came from the application of the focused window (or that is not known yet). */
  isFocusedApp: boolean;
};

/** What an adapter reports once started. */
export type AccessibilityInfo = {
  /** Which implementation answered, e.g. `atspi` or `native-helper`. */
  backend: string;
  /** Capabilities, e.g. `elementAt`, `snapshot`, `secure`, `focusEvents`, `contentEvents`. */
  capabilities: string[];
};

/**
 * A span in which accessibility answered nothing, e.g. a helper stuck in an OS call until it
 * was replaced (docs/helper-protocol.md §4). The session stores it as an `accessibility-gap` mark.
 */
export type AccessibilityGap = {
  /** Session clock ms: when the first unanswered request was sent. */
  startMs: number;
  /** Session clock ms: when a replacement answered, or null when none did (given up). */
  endMs: number | null;
  /** Machine-readable cause, e.g. `helper-timeouts`. */
  reason: string;
  /** For people: what happened and what was done. */
  detail: string;
};

/** Accessibility capture for one recording session. */
export interface AccessibilityAdapter {
  /** Connects; rejects with `ACCESSIBILITY_UNAVAILABLE` when the platform service is missing. */
  start(): Promise<AccessibilityInfo>;
  /** The element under the screen point with its ancestors, or null over no application. */
  elementAt(x: number, y: number): Promise<AxElementRecord | null>;
  /** The focused (active) window's subtree within the budget. */
  snapshotFocusedWindow(budget?: Partial<AxBudget>): Promise<AxSnapshot>;
  /** True when the element with keyboard focus is a secure (password) text field. */
  focusedIsSecure(): Promise<boolean>;
  /** Subscribes to focus changes (when the platform reports them); returns an unsubscribe. */
  onFocusChanged?(listener: (event: AxFocusEvent) => void): () => void;
  /**
   * Subscribes to content changes (when the platform reports them; capability `contentEvents`):
   * the snapshot policy then re-walks a window only when it changed (src/axtree/snapshot-policy.ts).
   */
  onContentChanged?(listener: (change: AxContentChange) => void): () => void;
  /** Subscribes to accessibility gaps (an adapter that recovers from a stuck backend reports them). */
  onGap?(listener: (gap: AccessibilityGap) => void): () => void;
  /** Disconnects; safe to call twice. */
  stop(): Promise<void>;
}
