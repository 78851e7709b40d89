// Public surface of global input capture. hook-child.ts is deliberately not exported: it loads
// uiohook-napi and only ever runs as the child process InputHook spawns.
export type {
  HookChildCommand,
  InputGap,
  InputGapReason,
  InputHookDiagnostic,
  InputHookDiagnosticCode,
  InputHookOptions,
  InputHookStartInfo,
  InputHookState,
  InputHookStopResult,
} from './hook-process';
export { InputHook, defaultHookChildCommand } from './hook-process';
export type {
  Hotkey,
  HotkeyAction,
  HotkeyBindings,
  HotkeyChord,
  HotkeyFilterOptions,
  HotkeyFilterOutput,
  HotkeyHit,
} from './hotkeys';
export {
  DEFAULT_HOTKEYS,
  DEFAULT_HOTKEY_HOLD_LIMIT_MS,
  HOTKEY_ACTIONS,
  HotkeyFilter,
  parseHotkey,
  resolveHotkeys,
} from './hotkeys';
export type { InputHookPreconditionOptions, InputHookPreconditions } from './input-preconditions';
export { checkInputHookPreconditions } from './input-preconditions';
export { KeyMasker, MASKED_KEY } from './key-masking';
export type { KeyboardLayout, LayoutKey } from './keyboard-layout';
export { US_KEYBOARD_LAYOUT, parseXkbKeymap } from './keyboard-layout';
export type { InputEvent, NormalizeOptions, NormalizerState } from './normalize-input-event';
export { createNormalizerState, keyNameOf, normalizeInputEvent } from './normalize-input-event';
export type { KeyboardLayoutReading } from './read-keyboard-layout';
export { readKeyboardLayout } from './read-keyboard-layout';
