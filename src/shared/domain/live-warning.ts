// Live warnings while recording (docs/architecture.md §5 "Live warnings"): plain strings like
// every recording warning (stored in `warnings_json`, pushed in the recorder's status), each
// starting with a stable code and a colon so UIs and tests can tell them apart.

/** Codes of the live warnings the recorder raises. */
export const LIVE_WARNING_CODES = [
  /** No input for longer than the idle threshold (once per idle stretch; pauses excluded). */
  'IDLE_LONG',
  /** The recording (pauses excluded) passed the long-recording threshold (once). */
  'RECORDING_LONG',
  /** The recorded display's size, origin or scale changed (the video went on in a new segment). */
  'DISPLAY_CHANGED',
  /** Input never reached the recorder (the X server dropped it under load, or hook lines went
   * missing): typed text around then may be incomplete. */
  'INPUT_LOST',
] as const;
export type LiveWarningCode = (typeof LIVE_WARNING_CODES)[number];

/** The live-warning code a warning string starts with, or null for any other warning. */
export function liveWarningCodeOf(warning: string): LiveWarningCode | null {
  const code = /^([A-Z_]+):/.exec(warning)?.[1];
  return (LIVE_WARNING_CODES as readonly string[]).includes(code ?? '')
    ? (code as LiveWarningCode)
    : null;
}
