// Wayland sessions on Linux (docs/platform-macos-windows.md §5): the recorder captures through
// X11 (x11grab, XRecord, xprop), which under Wayland sees only XWayland's own clients. DISPLAY is
// set there too (XWayland), and x11grab then records a black screen, so DISPLAY says nothing:
// the session type does. Ubuntu's default session is Wayland; "Ubuntu on Xorg" is the way out.
import { AppError } from '../../shared/errors';

/** What gave a Wayland session away. */
export type WaylandSession = {
  /** XDG_SESSION_TYPE, or null when unset. */
  sessionType: string | null;
  /** WAYLAND_DISPLAY, or null when unset. */
  waylandDisplay: string | null;
  /** DISPLAY (XWayland's when set), or null. */
  display: string | null;
};

/** The fix, in the words of Ubuntu's login screen. */
export const WAYLAND_FIX =
  'Log out, click your name on the login screen, choose "Ubuntu on Xorg" with the gear icon ' +
  'at the bottom right, log in and start the recorder again (on other desktops pick their ' +
  '"Xorg"/"X11" session the same way).';

// The Wayland session this environment belongs to, or null: XDG_SESSION_TYPE=wayland (even with
// XWayland's DISPLAY), or WAYLAND_DISPLAY set with no X DISPLAY at all.
export function detectWaylandSession(env: NodeJS.ProcessEnv): WaylandSession | null {
  const sessionType = nonEmpty(env.XDG_SESSION_TYPE);
  const waylandDisplay = nonEmpty(env.WAYLAND_DISPLAY);
  const display = nonEmpty(env.DISPLAY);
  const isWayland =
    sessionType?.toLowerCase() === 'wayland' || (waylandDisplay !== null && display === null);
  return isWayland ? { sessionType, waylandDisplay, display } : null;
}

// The WAYLAND_SESSION error for a detected session (record refuses, doctor reports it).
export function waylandSessionError(session: WaylandSession): AppError {
  const seen = [
    session.sessionType ? `XDG_SESSION_TYPE=${session.sessionType}` : null,
    session.waylandDisplay ? `WAYLAND_DISPLAY=${session.waylandDisplay}` : null,
    session.display ? `DISPLAY=${session.display} (XWayland)` : null,
  ]
    .filter((part) => part !== null)
    .join(', ');
  return new AppError(
    'WAYLAND_SESSION',
    `This is a Wayland session (${seen}): the recorder captures the screen, input and windows ` +
      'through X11, which under Wayland sees only XWayland windows and records a black screen.',
    { ...session },
    WAYLAND_FIX,
  );
}

// Throws WAYLAND_SESSION when `env` belongs to a Wayland session.
export function refuseWaylandSession(env: NodeJS.ProcessEnv): void {
  const session = detectWaylandSession(env);
  if (session) {
    throw waylandSessionError(session);
  }
}

function nonEmpty(value: string | undefined): string | null {
  const trimmed = value?.trim() ?? '';
  return trimmed === '' ? null : trimmed;
}
