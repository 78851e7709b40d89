// Key-name normalisation table of docs/action-reduction.md §C.6.
import { describe, expect, it } from 'vitest';
import type { ReducePlatform } from '../../../src/pipeline/reduce';
import { canonicalModifiers, normalizeKeyName } from '../../../src/pipeline/reduce';

// [raw names, normalised] rows of the §C.6 table (platform-independent rows).
const TABLE: readonly (readonly [readonly string[], string])[] = [
  [['ctrl', 'ctrl_l', 'ctrl_r', 'ctrlleft', 'ctrlright', 'Ctrl'], 'ctrl'],
  [['alt', 'alt_l', 'alt_r', 'altleft', 'altright', 'alt_gr'], 'alt'],
  [['shift', 'shift_l', 'shift_r', 'shiftleft', 'shiftright'], 'shift'],
  [['fn'], 'fn'],
  [['enter', 'return'], 'enter'],
  [['esc', 'escape'], 'esc'],
  [['page_up', 'pageup', 'pgup', 'Page Up'], 'pageup'],
  [['page_down', 'pagedown', 'pgdn', 'Page Down'], 'pagedown'],
  [['caps_lock', 'capslock', 'caps'], 'capslock'],
  [['num_lock', 'numlock'], 'numlock'],
  [['scroll_lock', 'scrolllock'], 'scrolllock'],
  [['print_screen', 'printscreen', 'prtsc', 'prtscr', 'prntscrn'], 'printscreen'],
  [['delete', 'del'], 'delete'],
  [['media_volume_up'], 'volumeup'],
  [['media_volume_down'], 'volumedown'],
  [['media_volume_mute'], 'volumemute'],
  [['media_play_pause'], 'playpause'],
  [['media_next'], 'nexttrack'],
  [['media_previous'], 'prevtrack'],
  [['menu', 'context_menu'], 'apps'],
  ...[
    'up',
    'down',
    'left',
    'right',
    'home',
    'end',
    'insert',
    'tab',
    'backspace',
    'space',
    'pause',
    'f1',
    'f12',
    'f24',
  ].map((name) => [[name], name] as const),
];

describe('normalizeKeyName', () => {
  it.each(TABLE)('maps %j to %s on every platform', (raws, expected) => {
    for (const platform of ['win32', 'darwin', 'linux'] as const) {
      for (const raw of raws) {
        const key = normalizeKeyName(raw, platform);
        expect([raw, key.name, key.isKnown]).toEqual([raw, expected, true]);
      }
    }
  });

  it('maps the meta keys to cmd on macOS and to win elsewhere', () => {
    const metas = ['cmd', 'cmd_l', 'cmd_r', 'command', 'windows', 'win', 'winleft', 'winright'];
    const names = (platform: ReducePlatform) =>
      [...metas, 'super', 'meta'].map((raw) => normalizeKeyName(raw, platform).name);
    expect(new Set(names('darwin'))).toEqual(new Set(['cmd']));
    expect(new Set(names('win32'))).toEqual(new Set(['win']));
    expect(new Set(names('linux'))).toEqual(new Set(['win']));
  });

  it('maps control characters \\x01–\\x1a to the letters a–z', () => {
    const letters = Array.from({ length: 26 }, (_, i) =>
      normalizeKeyName(String.fromCharCode(i + 1), 'win32'),
    ).map((key) => key.name);
    expect(letters.join('')).toBe('abcdefghijklmnopqrstuvwxyz');
  });

  it('keeps characters as produced (case, punctuation, non-ASCII) and maps " " to space', () => {
    expect(
      ['A', 'a', '!', 'é', '中', '😀'].map((raw) => normalizeKeyName(raw, 'win32').name),
    ).toEqual(['A', 'a', '!', 'é', '中', '😀']);
    expect(normalizeKeyName(' ', 'linux').name).toBe('space');
  });

  it('reports $Unknown (<vk>)$ as Unknown and other names as unknown raw names', () => {
    expect(normalizeKeyName('$Unknown (255)$', 'win32')).toEqual({
      name: 'Unknown',
      isKnown: false,
      modifier: null,
      isAltGr: false,
    });
    expect(normalizeKeyName('media_eject', 'win32')).toEqual({
      name: 'media_eject',
      isKnown: false,
      modifier: null,
      isAltGr: false,
    });
  });

  it('flags modifiers and AltGr', () => {
    expect(normalizeKeyName('ctrl_r', 'win32').modifier).toBe('ctrl');
    expect(normalizeKeyName('cmd', 'darwin').modifier).toBe('cmd');
    expect(normalizeKeyName('cmd', 'win32').modifier).toBe('win');
    expect(normalizeKeyName('fn', 'darwin').modifier).toBe('fn');
    expect(normalizeKeyName('alt_gr', 'win32')).toMatchObject({ modifier: 'alt', isAltGr: true });
    expect(normalizeKeyName('alt_l', 'win32').isAltGr).toBe(false);
    expect(normalizeKeyName('enter', 'win32').modifier).toBeNull();
  });
});

describe('canonicalModifiers', () => {
  it('orders ctrl, alt, cmd, win, shift and drops fn and duplicates', () => {
    expect(canonicalModifiers(['shift', 'fn', 'win', 'alt', 'cmd', 'ctrl', 'shift'])).toEqual([
      'ctrl',
      'alt',
      'cmd',
      'win',
      'shift',
    ]);
  });
});
