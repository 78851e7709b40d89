// The Linux platform's doctor checks of the desktop session (docs/platform-linux.md §1, §2): not
// a Wayland session, an X display that answers, its RECORD (input capture) and XTEST (synthetic
// input) extensions, and an EWMH window manager (the active-window timeline).
import { tailLines } from '../../../infra/lines';
import { ProcessStartError, runCommand } from '../../../infra/run-command';
import type { CommandResult } from '../../../infra/run-command';
import { detectWaylandSession, waylandSessionError } from '../wayland';
import type { PlatformCheck } from '../types';

const XVFB_FIX =
  'apt-get install xvfb x11-utils, then start a virtual display: ' +
  '`Xvfb :99 -screen 0 1280x800x24 -nolisten tcp &` and `export DISPLAY=:99` ' +
  '(or run from a logged-in X11 desktop session)';
const XDPYINFO_FIX = 'apt-get install x11-utils (provides xdpyinfo)';

// Linux: the recorder captures through X11, which under Wayland sees only XWayland (black
// video even though DISPLAY answers), so the session type is checked first.
export function checkSessionType(env: NodeJS.ProcessEnv): PlatformCheck {
  const base = { id: 'session', severity: 'error' } as const;
  const wayland = detectWaylandSession(env);
  if (wayland) {
    const error = waylandSessionError(wayland);
    return {
      ...base,
      ok: false,
      summary: `[${error.code}] ${error.message}`,
      ...(error.fix ? { fix: error.fix } : {}),
    };
  }
  const type = env.XDG_SESSION_TYPE?.trim();
  return {
    ...base,
    ok: true,
    summary: type
      ? `${type} session (not Wayland)`
      : 'not a Wayland session (XDG_SESSION_TYPE unset)',
  };
}

// The X display named by DISPLAY (xdpyinfo), its RECORD and XTEST extensions and the window
// manager; RECORD and XTEST are reported as not checked while the display does not answer.
export async function checkX11(
  env: NodeJS.ProcessEnv,
  timeoutMs: number,
): Promise<PlatformCheck[]> {
  const display = env.DISPLAY?.trim() ?? '';
  // RECORD and XTEST are only known once the display answers: point at the display fix
  const dependents = (reason: string): PlatformCheck[] =>
    (['xrecord', 'xtest'] as const).map((id) => ({
      id,
      ok: false,
      severity: id === 'xrecord' ? 'error' : 'warning',
      summary: `not checked: ${reason}`,
      fix: 'fix the display check first',
    }));

  if (display === '') {
    const onWayland = (env.WAYLAND_DISPLAY ?? '') !== '';
    return [
      {
        id: 'display',
        ok: false,
        severity: 'error',
        summary: onWayland
          ? 'DISPLAY is not set (Wayland session without Xwayland): capture needs X11'
          : 'DISPLAY is not set: no X display to record',
        fix: onWayland ? `log in to an X11 (Xorg) session, or ${XVFB_FIX}` : XVFB_FIX,
      },
      ...dependents('no X display'),
    ];
  }

  let result: CommandResult;
  try {
    result = await runCommand('xdpyinfo', ['-display', display], { env, timeoutMs });
  } catch (error) {
    if (error instanceof ProcessStartError) {
      return [
        {
          id: 'display',
          ok: false,
          severity: 'error',
          summary: `cannot query DISPLAY=${display}: xdpyinfo is not installed`,
          fix: XDPYINFO_FIX,
        },
        ...dependents('xdpyinfo is not installed'),
      ];
    }
    throw error;
  }

  if (result.code !== 0 || result.isTimedOut) {
    const reason = result.isTimedOut
      ? 'xdpyinfo timed out'
      : tailLines(result.stderr, 1) || `xdpyinfo exited with ${result.code ?? result.signal}`;
    const fix =
      `start the X server for DISPLAY=${display} or point DISPLAY at a running one ` +
      `(check XAUTHORITY if access is refused); for a virtual display: ${XVFB_FIX}`;
    return [
      {
        id: 'display',
        ok: false,
        severity: 'error',
        summary: `X display ${display} does not answer (${reason})`,
        fix,
      },
      ...dependents(`X display ${display} does not answer`),
    ];
  }

  const info = parseXdpyinfo(result.stdout);
  const details = [info.vendor, info.dimensions].filter((part) => part !== null).join(', ');
  const hasRecord = info.extensions.includes('RECORD');
  const hasXtest = info.extensions.includes('XTEST');
  const windowManager = await checkWindowManager(env, display, timeoutMs);
  return [
    {
      id: 'display',
      ok: true,
      severity: 'error',
      summary: `X display ${display} answers${details ? ` (${details})` : ''}`,
    },
    {
      id: 'xrecord',
      ok: hasRecord,
      severity: 'error',
      summary: hasRecord
        ? 'RECORD extension present (global input capture works)'
        : `RECORD extension missing on ${display}: the input hook cannot capture mouse and keys`,
      ...(hasRecord
        ? {}
        : {
            fix:
              'enable RECORD: Xorg: add `Section "Extensions"` / `Option "RECORD" "Enable"` / ' +
              '`EndSection` to xorg.conf and restart X; Xvfb: drop `-extension RECORD` ' +
              "(Debian's Xvfb enables it by default)",
          }),
    },
    {
      id: 'xtest',
      ok: hasXtest,
      severity: 'warning',
      summary: hasXtest
        ? 'XTEST extension present (synthetic input for tests and replay)'
        : `XTEST extension missing on ${display}: synthetic input (xdotool, replay) will not work`,
      ...(hasXtest
        ? {}
        : {
            fix:
              'enable XTEST: Xorg: `Option "XTEST" "Enable"` in `Section "Extensions"`; ' +
              'Xvfb: drop `-extension XTEST`',
          }),
    },
    windowManager,
  ];
}

// The active-window timeline reads _NET_ACTIVE_WINDOW, which only an EWMH window manager sets;
// one is running when the root window names its check window (_NET_SUPPORTING_WM_CHECK).
async function checkWindowManager(
  env: NodeJS.ProcessEnv,
  display: string,
  timeoutMs: number,
): Promise<PlatformCheck> {
  const base = { id: 'windowmanager', severity: 'warning' } as const;
  const consequence = 'recordings will have no window timeline (no window title or app per step)';
  const xprop = async (args: string[]) => {
    try {
      return await runCommand('xprop', ['-display', display, ...args], { env, timeoutMs });
    } catch (error) {
      if (error instanceof ProcessStartError) {
        return null;
      }
      throw error;
    }
  };
  const root = await xprop(['-root', '_NET_SUPPORTING_WM_CHECK']);
  if (root === null) {
    return {
      ...base,
      ok: false,
      summary: `cannot ask ${display} for a window manager: xprop is not installed (${consequence})`,
      fix: 'apt-get install x11-utils (provides xprop, which the window timeline uses too)',
    };
  }
  const windowId = /window id # (0x[0-9a-f]+)/i.exec(root.stdout)?.[1];
  if (root.code !== 0 || windowId === undefined) {
    return {
      ...base,
      ok: false,
      summary: `no window manager is running on ${display}: ${consequence}`,
      fix:
        'record inside a desktop session, or start a window manager on this display ' +
        `(apt-get install openbox; \`DISPLAY=${display} openbox &\`)`,
    };
  }
  const named = await xprop(['-id', windowId, '_NET_WM_NAME']);
  const name = named ? /=\s*"([^"]*)"/.exec(named.stdout)?.[1] : undefined;
  return {
    ...base,
    ok: true,
    summary: `window manager ${name ?? '(unnamed)'} is running (window timeline available)`,
  };
}

type XdpyinfoFacts = {
  vendor: string | null;
  dimensions: string | null;
  extensions: string[];
};

function parseXdpyinfo(output: string): XdpyinfoFacts {
  const lines = output.split(/\r?\n/);
  const extensions: string[] = [];
  const start = lines.findIndex((line) => line.startsWith('number of extensions:'));
  if (start >= 0) {
    // the extension names follow, one per indented line
    for (const line of lines.slice(start + 1)) {
      if (!/^\s+\S/.test(line)) {
        break;
      }
      extensions.push(line.trim());
    }
  }
  const vendor = lines.find((line) => line.startsWith('vendor string:'));
  const dimensions = /^\s*dimensions:\s+(\d+x\d+) pixels/m.exec(output);
  return {
    vendor: vendor === undefined ? null : vendor.slice('vendor string:'.length).trim(),
    dimensions: dimensions?.[1] ?? null,
    extensions,
  };
}
