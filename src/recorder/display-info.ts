// Facts about the captured X display: size in physical pixels, scale factor, monitor layout.
import os from 'node:os';
import { AppError } from '../shared/errors';
import { runTool } from './input/run-tool';

/** One monitor rectangle in physical px. */
export type MonitorInfo = {
  x: number;
  y: number;
  width: number;
  height: number;
  primary: boolean;
  name: string;
};

/** What the recorder stores about the display and the machine. */
export type DisplayInfo = {
  /** X display name, e.g. `:99`. */
  display: string;
  /** Whole X screen in physical px. */
  width: number;
  height: number;
  /**
   * Top-left corner of the recorded display in physical px of the virtual desktop (negative on a
   * monitor left of or above the primary one); absent = 0,0, as on Linux, where the recorded
   * display is the whole X screen (src/recorder/coordinates.ts).
   */
  origin?: { x: number; y: number };
  /** Physical / logical px (Xft.dpi / 96; 1 when unknown). */
  scale: number;
  monitors: MonitorInfo[];
  /** X server vendor string. */
  vendor: string | null;
};

/** Parses `xdpyinfo` output: screen dimensions and vendor. */
export function parseXdpyinfo(
  text: string,
): { width: number; height: number; vendor: string | null } | null {
  const dim = /dimensions:\s+(\d+)x(\d+) pixels/.exec(text);
  if (!dim) {
    return null;
  }
  const vendor = /vendor string:\s+(.+)/.exec(text)?.[1]?.trim() ?? null;
  return { width: Number(dim[1]), height: Number(dim[2]), vendor };
}

/** Parses `xrandr --listmonitors` lines like ` 0: +*DP-1 1920/527x1080/296+0+0  DP-1`. */
export function parseListMonitors(text: string): MonitorInfo[] {
  const out: MonitorInfo[] = [];
  for (const line of text.split('\n')) {
    const m = /^\s*\d+:\s+\+?(\*?)(\S+)\s+(\d+)\/\d+x(\d+)\/\d+\+(-?\d+)\+(-?\d+)/.exec(line);
    if (m) {
      out.push({
        primary: m[1] === '*',
        name: m[2]!,
        width: Number(m[3]),
        height: Number(m[4]),
        x: Number(m[5]),
        y: Number(m[6]),
      });
    }
  }
  return out;
}

/** Reads the display's geometry with xdpyinfo (and xrandr/xrdb when present). */
export async function readDisplayInfo(env: NodeJS.ProcessEnv = process.env): Promise<DisplayInfo> {
  const display = env.DISPLAY;
  if (!display) {
    throw new AppError(
      'INPUT_HOOK_UNAVAILABLE',
      'DISPLAY is not set: there is no X display to record. Run from an X11 session, or start Xvfb and export DISPLAY.',
    );
  }
  const info = await runTool('xdpyinfo', ['-display', display], env, 5000);
  const parsed = info.code === 0 ? parseXdpyinfo(info.stdout) : null;
  if (!parsed) {
    throw new AppError(
      'INPUT_HOOK_UNAVAILABLE',
      `Cannot read the geometry of X display ${display} (${info.code === 0 ? 'unexpected xdpyinfo output' : (info.errno ?? info.stderr.trim()) || `exit ${info.code}`}). Install x11-utils and check that the display is running.`,
    );
  }
  const monitorsText = await runTool('xrandr', ['--listmonitors'], env, 3000);
  const monitors = monitorsText.code === 0 ? parseListMonitors(monitorsText.stdout) : [];
  const xrdb = await runTool('xrdb', ['-query'], env, 3000);
  const dpi = xrdb.code === 0 ? Number(/Xft\.dpi:\s*([\d.]+)/.exec(xrdb.stdout)?.[1] ?? NaN) : NaN;
  return {
    display,
    width: parsed.width,
    height: parsed.height,
    scale: Number.isFinite(dpi) && dpi > 0 ? dpi / 96 : 1,
    monitors: monitors.length
      ? monitors
      : [{ x: 0, y: 0, width: parsed.width, height: parsed.height, primary: true, name: 'screen' }],
    vendor: parsed.vendor,
  };
}

/** OS facts for the recording's metadata. */
export function osInfo(): {
  os: string;
  system: string;
  release: string;
  version: string;
  machine: string;
} {
  return {
    os: process.platform,
    system: os.type(),
    release: os.release(),
    version: os.version(),
    machine: os.machine(),
  };
}
