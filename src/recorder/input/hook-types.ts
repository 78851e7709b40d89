// The input hook's public vocabulary (docs/architecture.md §5): gaps in capture, non-fatal
// diagnostics, lifecycle states and the explicit child command; shared by hook-supervisor.ts and
// hook-process.ts (which re-exports it).

/** Why input was not captured for a while. */
export type InputGapReason = 'child-exit' | 'stall';

/** A stretch of time without input capture. */
export type InputGap = {
  /** Last sign of life of the hook before the gap (session clock, ms). */
  startMs: number;
  /** When a new hook was capturing again (ms); null when the hook gave up (lost until stop). */
  endMs: number | null;
  reason: InputGapReason;
  /** Exit code or signal, stall length, stderr tail. */
  detail: string;
};

/** Kinds of non-fatal problems reported through `onDiagnostic`. */
export type InputHookDiagnosticCode =
  | 'HELPER_PROTOCOL_ERROR'
  | 'HOOK_EVENTS_LOST'
  | 'INPUT_LOST'
  | 'HOOK_RESTARTED'
  | 'HOOK_RESTART_FAILED'
  | 'KEYMAP_FALLBACK'
  | 'RECORD_NOT_CHECKED'
  | 'CALLBACK_FAILED';

/** A non-fatal problem. */
export type InputHookDiagnostic = {
  code: InputHookDiagnosticCode;
  message: string;
  details?: Record<string, unknown>;
};

/** An explicit child command (a test seam: e.g. a scripted fake hook); replaces the launcher. */
export type HookChildCommand = {
  /** Executable, e.g. `process.execPath`. */
  command: string;
  args: string[];
};

/** Lifecycle states of the hook. */
export type InputHookState =
  'idle' | 'starting' | 'running' | 'restarting' | 'stopping' | 'stopped' | 'failed';
