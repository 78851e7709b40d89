// Keyboard shortcuts of the recording page as a pure key → command mapping.

/** What the page does for a key. */
export type ShortcutCommand =
  'undo' | 'redo' | 'prev-step' | 'next-step' | 'delete-step' | 'toggle-play';

/** The parts of a KeyboardEvent the mapping reads. */
export type KeyInput = {
  key: string;
  ctrlKey: boolean;
  metaKey: boolean;
  shiftKey: boolean;
  altKey: boolean;
  /** Focus is in a text field, select, or contenteditable (plain keys belong to it). */
  isEditableTarget: boolean;
};

// The command for a key press, or null (undo/redo also work from text fields: they flush first).
export function shortcutFor(e: KeyInput): ShortcutCommand | null {
  const mod = e.ctrlKey || e.metaKey;
  const key = e.key.length === 1 ? e.key.toLowerCase() : e.key;
  if (mod && !e.altKey && key === 'z') {
    if (e.isEditableTarget) {
      // the browser's own text undo wins inside a field
      return null;
    }
    return e.shiftKey ? 'redo' : 'undo';
  }
  if (mod && !e.altKey && !e.shiftKey && key === 'y' && !e.isEditableTarget) {
    return 'redo';
  }
  if (mod || e.altKey || e.isEditableTarget) {
    return null;
  }
  switch (key) {
    case 'ArrowUp':
      return 'prev-step';
    case 'ArrowDown':
      return 'next-step';
    case 'Delete':
      return 'delete-step';
    case ' ':
      return e.shiftKey ? null : 'toggle-play';
    default:
      return null;
  }
}

/** Shortcut help shown in the UI. */
export const SHORTCUT_HELP: readonly { keys: string; what: string }[] = [
  { keys: '↑ / ↓', what: 'previous / next step' },
  { keys: 'Space', what: 'play / pause' },
  { keys: 'Delete', what: 'delete the step' },
  { keys: 'Ctrl+Z', what: 'undo' },
  { keys: 'Ctrl+Shift+Z', what: 'redo' },
];
