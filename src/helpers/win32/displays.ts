// Monitors (EnumDisplayMonitors + GetMonitorInfoW + GetDpiForMonitor) as protocol displays:
// rcMonitor in physical pixels of the virtual desktop (the helper is per-monitor-v2 DPI aware,
// so Windows reports physical pixels), negative origins kept, scale = DPI / 96, primary from
// MONITORINFOF_PRIMARY (docs/helper-protocol.md §3, §6).
import type { HelperDisplay } from '../../axtree/platform/helper-protocol';
import type { Win32Monitor } from './uia-backend';

/** MONITORINFOF_PRIMARY in MONITORINFO.dwFlags. */
export const MONITORINFOF_PRIMARY = 1;

/** The protocol displays of `monitors` (in enumeration order). */
export function toHelperDisplays(monitors: readonly Win32Monitor[]): HelperDisplay[] {
  return monitors.map((m) => {
    const display: HelperDisplay = {
      id: m.device,
      bounds: {
        x: m.rect.left,
        y: m.rect.top,
        width: Math.max(0, m.rect.right - m.rect.left),
        height: Math.max(0, m.rect.bottom - m.rect.top),
      },
      scale: m.dpi !== null && m.dpi > 0 ? m.dpi / 96 : 1,
      primary: m.primary,
    };
    if (m.device !== '') {
      display.name = m.device;
    }
    return display;
  });
}

/** A string that changes when the layout changes (a monitor added, removed, moved, rescaled). */
export function displaysKey(displays: readonly HelperDisplay[]): string {
  return JSON.stringify(
    [...displays]
      .map((d) => [
        d.id,
        d.bounds.x,
        d.bounds.y,
        d.bounds.width,
        d.bounds.height,
        d.scale,
        d.primary,
      ])
      .sort((a, b) => String(a[0]).localeCompare(String(b[0]))),
  );
}
