// Global hotkeys: checked, registered, conflicts reported (malformed, duplicate, taken).
import { describe, expect, it } from 'vitest';
import {
  acceleratorToChord,
  DEFAULT_APP_HOTKEYS,
  normalizeAccelerator,
  registerHotkeys,
} from '../../src/main/hotkeys';

/** A globalShortcut where some accelerators belong to another application. */
function fakeShortcuts(takenByOthers: string[] = []) {
  const held = new Map<string, () => void>();
  return {
    held,
    register: (accelerator: string, callback: () => void) => {
      if (takenByOthers.includes(accelerator) || held.has(accelerator)) {
        return false;
      }
      held.set(accelerator, callback);
      return true;
    },
    unregister: (accelerator: string) => {
      held.delete(accelerator);
    },
  };
}

describe('hotkeys', () => {
  it('registers the defaults and calls the action on a press; unregister releases them', () => {
    const shortcuts = fakeShortcuts();
    const pressed: string[] = [];
    const reg = registerHotkeys(shortcuts, DEFAULT_APP_HOTKEYS, (a) => pressed.push(a));
    expect(reg.report).toEqual({
      registered: [
        { action: 'startStop', accelerator: 'CommandOrControl+Alt+Shift+R' },
        { action: 'pause', accelerator: 'CommandOrControl+Alt+Shift+P' },
      ],
      conflicts: [],
    });
    shortcuts.held.get('CommandOrControl+Alt+Shift+P')!();
    shortcuts.held.get('CommandOrControl+Alt+Shift+R')!();
    expect(pressed).toEqual(['pause', 'startStop']);
    reg.unregister();
    expect(shortcuts.held.size).toBe(0);
  });

  it('reports a hotkey taken by another application, a duplicate and a malformed one', () => {
    const taken = registerHotkeys(
      fakeShortcuts(['Control+Alt+R']),
      { startStop: 'ctrl+alt+r', pause: 'Ctrl+Alt+P' },
      () => undefined,
    );
    expect(taken.report.registered).toEqual([{ action: 'pause', accelerator: 'Control+Alt+P' }]);
    expect(taken.report.conflicts).toEqual([
      expect.objectContaining({ action: 'startStop', reason: 'taken' }),
    ]);
    expect(taken.report.conflicts[0]!.message).toMatch(/taken by another application/);

    const dup = registerHotkeys(
      fakeShortcuts(),
      { startStop: 'Alt+Shift+F9', pause: 'shift+alt+f9' },
      () => undefined,
    );
    expect(dup.report.conflicts).toEqual([
      expect.objectContaining({ action: 'pause', reason: 'duplicate' }),
    ]);

    const bad = registerHotkeys(
      fakeShortcuts(),
      { startStop: 'R', pause: 'Ctrl+Alt+Banana' },
      () => undefined,
    );
    expect(bad.report.registered).toEqual([]);
    expect(bad.report.conflicts.map((c) => c.reason)).toEqual(['invalid', 'invalid']);

    const throwing = registerHotkeys(
      {
        register: () => {
          throw new Error('conversion failed');
        },
        unregister: () => undefined,
      },
      DEFAULT_APP_HOTKEYS,
      () => undefined,
    );
    expect(throwing.report.conflicts.map((c) => c.reason)).toEqual(['invalid', 'invalid']);
  });

  it('normalises accelerators and converts them to the recorder chord text', () => {
    expect(normalizeAccelerator('shift+CmdOrCtrl+alt+r')).toEqual({
      ok: true,
      value: 'CommandOrControl+Alt+Shift+R',
    });
    expect(normalizeAccelerator('Ctrl+Alt+Space')).toEqual({
      ok: true,
      value: 'Control+Alt+Space',
    });
    expect(normalizeAccelerator('Shift+A').ok).toBe(false);
    expect(normalizeAccelerator('Ctrl++').ok).toBe(false);
    expect(normalizeAccelerator('Ctrl+A+B').ok).toBe(false);
    expect(acceleratorToChord('CommandOrControl+Alt+Shift+R', 'linux')).toBe('ctrl+alt+shift+r');
    expect(acceleratorToChord('CommandOrControl+Alt+Shift+R', 'darwin')).toBe('meta+alt+shift+r');
    expect(acceleratorToChord('nonsense', 'linux')).toBeNull();
  });
});
