// Reads the running X server's keymap once per hook start (`xkbcomp -xkb $DISPLAY -`, from
// x11-xkb-utils, which every X server installation carries) and turns it into a KeyboardLayout;
// falls back to the built-in US layout and says why.
import { parseXkbKeymap, US_KEYBOARD_LAYOUT } from './keyboard-layout';
import type { KeyboardLayout } from './keyboard-layout';
import { runTool } from './run-tool';

/** A layout and, when it is the fallback, why. */
export type KeyboardLayoutReading = {
  layout: KeyboardLayout;
  /** Why the built-in US layout is used, else null. */
  problem: string | null;
};

const DEFAULT_TIMEOUT_MS = 5000;

// The X keymap of env.DISPLAY as a layout, or the US layout with the reason it was not read.
export async function readKeyboardLayout(
  env: NodeJS.ProcessEnv = process.env,
  timeoutMs = DEFAULT_TIMEOUT_MS,
): Promise<KeyboardLayoutReading> {
  const display = env.DISPLAY?.trim() ?? '';
  if (display === '') {
    return { layout: US_KEYBOARD_LAYOUT, problem: 'DISPLAY is not set' };
  }
  const result = await runTool('xkbcomp', ['-xkb', display, '-'], env, timeoutMs);
  if (result.errno === 'ENOENT') {
    return {
      layout: US_KEYBOARD_LAYOUT,
      problem: 'xkbcomp is not installed (apt-get install x11-xkb-utils)',
    };
  }
  if (result.code !== 0) {
    const tail = result.stderr.trim().split(/\r?\n/).slice(-2).join(' | ');
    return {
      layout: US_KEYBOARD_LAYOUT,
      problem: `xkbcomp failed (${result.isTimedOut ? 'timed out' : `exit ${result.code}`}): ${tail}`,
    };
  }
  try {
    return { layout: parseXkbKeymap(result.stdout), problem: null };
  } catch (error) {
    return {
      layout: US_KEYBOARD_LAYOUT,
      problem: `the xkbcomp keymap could not be read: ${error instanceof Error ? error.message : String(error)}`,
    };
  }
}
