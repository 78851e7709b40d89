// What the desktop app's HUD window may use of the contract (src/renderer/pages/HudPage.tsx and
// the recorder store it drives): its status, pause/resume and stop, and the status pushes. Its
// preload (src/preload/hud.ts) exposes only these, and the main process refuses any other call
// from the HUD (src/main/index.ts): a HUD page gone wrong cannot list, export or upload.
import type { ApiEvent, ApiMethod } from './methods';

/** The methods the HUD calls. */
export const HUD_METHODS = [
  'recorder:get-status',
  'recorder:pause',
  'recorder:resume',
  'recorder:stop',
] as const satisfies readonly ApiMethod[];

/** The events the HUD listens to. */
export const HUD_EVENTS = ['recorder:status-changed'] as const satisfies readonly ApiEvent[];
