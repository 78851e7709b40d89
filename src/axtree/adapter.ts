// The platform-neutral accessibility port: Linux implements it over AT-SPI (D-Bus), macOS and
// Windows over a native helper speaking JSON lines (platform/native-helper.ts).
import type { AxBudget } from './budgets';
import type { AxElementRecord, AxFocusEvent, AxSnapshot } from './model';

/** What an adapter reports once started. */
export type AccessibilityInfo = {
  /** Which implementation answered, e.g. `atspi` or `native-helper`. */
  backend: string;
  /** Capabilities, e.g. `elementAt`, `snapshot`, `secure`, `focusEvents`. */
  capabilities: string[];
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
  /** Disconnects; safe to call twice. */
  stop(): Promise<void>;
}
