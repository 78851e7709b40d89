// The app's global hotkeys: configurable Electron accelerators (the settings' `hotkeys`),
// checked before registering, registered through globalShortcut, with a report of each one that
// could not be had (malformed, bound twice, taken by another application), so the settings page
// and the tray can say so instead of a hotkey silently doing nothing.
import type { GlobalShortcut } from 'electron';

/** The hotkeys, by the settings' names: start/stop toggles recording, pause pauses/resumes. */
export type AppHotkeys = { startStop: string; pause: string };
/** One hotkey action. */
export type AppHotkeyAction = keyof AppHotkeys;

/**
 * Default accelerators: the same chords as the recorder's own stop and pause hotkeys
 * (src/recorder/input/hotkeys.ts), three modifiers so application shortcuts rarely collide.
 */
export const DEFAULT_APP_HOTKEYS: Readonly<AppHotkeys> = {
  startStop: 'CommandOrControl+Alt+Shift+R',
  pause: 'CommandOrControl+Alt+Shift+P',
};

/** Why a hotkey is not registered. */
export type HotkeyConflict = {
  action: AppHotkeyAction;
  accelerator: string;
  reason: 'invalid' | 'duplicate' | 'taken';
  /** One sentence for the user, with what to do. */
  message: string;
};

/** What registering the hotkeys achieved. */
export type HotkeyReport = {
  registered: { action: AppHotkeyAction; accelerator: string }[];
  conflicts: HotkeyConflict[];
};

const MODIFIERS: Record<string, string> = {
  command: 'Command',
  cmd: 'Command',
  control: 'Control',
  ctrl: 'Control',
  commandorcontrol: 'CommandOrControl',
  cmdorctrl: 'CommandOrControl',
  alt: 'Alt',
  option: 'Alt',
  altgr: 'AltGr',
  shift: 'Shift',
  super: 'Super',
  meta: 'Super',
};

const NAMED_KEYS = [
  'Plus',
  'Space',
  'Tab',
  'Capslock',
  'Numlock',
  'Scrolllock',
  'Backspace',
  'Delete',
  'Insert',
  'Return',
  'Enter',
  'Up',
  'Down',
  'Left',
  'Right',
  'Home',
  'End',
  'PageUp',
  'PageDown',
  'Escape',
  'Esc',
  'PrintScreen',
];
const NAMED_KEY_BY_LOWER = new Map(NAMED_KEYS.map((k) => [k.toLowerCase(), k]));

/**
 * The canonical form of an accelerator (modifiers in a fixed order, key upper-cased), or an
 * error saying what is wrong. A global hotkey needs at least one modifier other than Shift: a
 * bare key would be taken from every application.
 */
export function normalizeAccelerator(
  accelerator: string,
): { ok: true; value: string } | { ok: false; message: string } {
  const parts = accelerator.split('+').map((p) => p.trim());
  if (parts.some((p) => p === '')) {
    return { ok: false, message: `"${accelerator}" has an empty part (write Plus for the + key)` };
  }
  const modifiers = new Set<string>();
  const keys: string[] = [];
  for (const part of parts) {
    const modifier = MODIFIERS[part.toLowerCase()];
    if (modifier !== undefined) {
      modifiers.add(modifier);
    } else {
      keys.push(part);
    }
  }
  if (keys.length !== 1 || keys[0] === undefined) {
    return { ok: false, message: `"${accelerator}" must name exactly one key besides modifiers` };
  }
  const key = canonicalKey(keys[0]);
  if (key === null) {
    return { ok: false, message: `"${keys[0]}" in "${accelerator}" is not a key name` };
  }
  if ([...modifiers].every((m) => m === 'Shift')) {
    return {
      ok: false,
      message: `"${accelerator}" needs a modifier such as CommandOrControl or Alt`,
    };
  }
  const order = ['CommandOrControl', 'Command', 'Control', 'Alt', 'AltGr', 'Shift', 'Super'];
  return { ok: true, value: [...order.filter((m) => modifiers.has(m)), key].join('+') };
}

function canonicalKey(key: string): string | null {
  if (/^[a-z0-9]$/i.test(key)) {
    return key.toUpperCase();
  }
  if (/^f([1-9]|1[0-9]|2[0-4])$/i.test(key)) {
    return key.toUpperCase();
  }
  if (/^[)!@#$%^&*(:;<=>?,\-_.~`/[\]\\|{}'"]$/.test(key)) {
    return key;
  }
  return NAMED_KEY_BY_LOWER.get(key.toLowerCase()) ?? null;
}

/** A registered set of hotkeys. */
export type HotkeyRegistration = {
  report: HotkeyReport;
  /** Unregisters the hotkeys this registration holds. */
  unregister: () => void;
};

// Checks and registers `hotkeys`, calling `onAction` when one is pressed. Conflicts are
// reported, never thrown: the app works without a hotkey (the tray still has every action).
export function registerHotkeys(
  shortcuts: Pick<GlobalShortcut, 'register' | 'unregister'>,
  hotkeys: AppHotkeys,
  onAction: (action: AppHotkeyAction) => void,
): HotkeyRegistration {
  const report: HotkeyReport = { registered: [], conflicts: [] };
  const seen = new Map<string, AppHotkeyAction>();
  const held: string[] = [];
  for (const action of Object.keys(hotkeys) as AppHotkeyAction[]) {
    const accelerator = hotkeys[action];
    const normal = normalizeAccelerator(accelerator);
    if (!normal.ok) {
      report.conflicts.push({
        action,
        accelerator,
        reason: 'invalid',
        message: `The ${action} hotkey ${normal.message}; choose another in Settings.`,
      });
      continue;
    }
    const other = seen.get(normal.value);
    if (other !== undefined) {
      report.conflicts.push({
        action,
        accelerator,
        reason: 'duplicate',
        message: `The ${action} hotkey ${accelerator} is also the ${other} hotkey; give it another.`,
      });
      continue;
    }
    seen.set(normal.value, action);
    let isRegistered: boolean;
    try {
      isRegistered = shortcuts.register(normal.value, () => onAction(action));
    } catch (e) {
      report.conflicts.push({
        action,
        accelerator,
        reason: 'invalid',
        message: `The ${action} hotkey ${accelerator} was refused (${(e as Error).message}); choose another in Settings.`,
      });
      continue;
    }
    if (!isRegistered) {
      report.conflicts.push({
        action,
        accelerator,
        reason: 'taken',
        message: `The ${action} hotkey ${accelerator} is taken by another application; choose another in Settings or use the tray.`,
      });
      continue;
    }
    held.push(normal.value);
    report.registered.push({ action, accelerator: normal.value });
  }
  return {
    report,
    unregister: () => {
      for (const accelerator of held.splice(0)) {
        shortcuts.unregister(accelerator);
      }
    },
  };
}

/**
 * The recorder's chord text (src/recorder/input/hotkeys.ts: `ctrl+alt+shift+r`) of an
 * accelerator on `platform`, so that the recorder leaves the app's own hotkeys out of the steps.
 */
export function acceleratorToChord(accelerator: string, platform: NodeJS.Platform): string | null {
  const normal = normalizeAccelerator(accelerator);
  if (!normal.ok) {
    return null;
  }
  const names: Record<string, string> = {
    CommandOrControl: platform === 'darwin' ? 'meta' : 'ctrl',
    Command: 'meta',
    Control: 'ctrl',
    Alt: 'alt',
    AltGr: 'alt',
    Shift: 'shift',
    Super: 'meta',
  };
  return normal.value
    .split('+')
    .map((part) => names[part] ?? part.toLowerCase())
    .join('+');
}
