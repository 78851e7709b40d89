// The desktop app's first-run checks that only the OS can answer, added to `system:health`:
// macOS privacy permissions (Accessibility, Screen Recording, Input Monitoring) with the settings
// pane that grants each, and Windows DPI awareness. Pure over the Electron APIs they read, so
// they are tested with fakes here; they run for real only on those systems.
import type { HealthCheckDto } from './health-types';

/** The part of Electron's systemPreferences the checks read (macOS). */
export type MacPermissionApi = {
  isTrustedAccessibilityClient: (prompt: boolean) => boolean;
  getMediaAccessStatus: (mediaType: 'screen') => string;
};

/** System Settings panes (x-apple.systempreferences URLs) that grant each permission. */
export const MAC_PRIVACY_PANES = {
  accessibility: 'x-apple.systempreferences:com.apple.preference.security?Privacy_Accessibility',
  screenRecording: 'x-apple.systempreferences:com.apple.preference.security?Privacy_ScreenCapture',
  inputMonitoring: 'x-apple.systempreferences:com.apple.preference.security?Privacy_ListenEvent',
} as const;

/** URL schemes the app may hand to the OS (settings panes): everything else stays refused. */
export const SETTINGS_URL_PREFIXES = ['x-apple.systempreferences:', 'ms-settings:'] as const;

/** True for a settings-pane URL the app opens with the OS (shell.openExternal). */
export function isSettingsPaneUrl(url: string): boolean {
  return SETTINGS_URL_PREFIXES.some((prefix) => url.startsWith(prefix));
}

/** The macOS permission checks, in the order the onboarding asks for them. */
export function macPermissionChecks(api: MacPermissionApi): HealthCheckDto[] {
  const accessibility = api.isTrustedAccessibilityClient(false);
  const screen = api.getMediaAccessStatus('screen');
  return [
    {
      id: 'mac-accessibility',
      ok: accessibility,
      severity: 'error',
      summary: accessibility
        ? 'Accessibility: granted (the element under each click is recorded)'
        : 'Accessibility: not granted; clicks and keys cannot be read or described',
      ...(accessibility
        ? {}
        : {
            fix: `Open System Settings › Privacy & Security › Accessibility (${MAC_PRIVACY_PANES.accessibility}), turn on cua-annotator, then press "Check again".`,
          }),
    },
    {
      id: 'mac-screen-recording',
      ok: screen === 'granted',
      severity: 'error',
      summary:
        screen === 'granted'
          ? 'Screen Recording: granted'
          : `Screen Recording: ${screen}; the video would show only the desktop background`,
      ...(screen === 'granted'
        ? {}
        : {
            fix: `Open System Settings › Privacy & Security › Screen Recording (${MAC_PRIVACY_PANES.screenRecording}), turn on cua-annotator; macOS then asks to quit and reopen the app, which comes back to this page.`,
          }),
    },
    {
      // no public API tells whether Input Monitoring is granted without prompting; the input
      // hook reports a failure to start when it is missing
      id: 'mac-input-monitoring',
      ok: true,
      severity: 'warning',
      summary:
        'Input Monitoring: checked when a recording starts (macOS has no silent check for it)',
      fix: `If keys are not recorded, open System Settings › Privacy & Security › Input Monitoring (${MAC_PRIVACY_PANES.inputMonitoring}) and turn on cua-annotator.`,
    },
  ];
}

/** Windows: the app's processes are per-monitor DPI aware (Electron's manifest), so recorded
 * coordinates are physical pixels; reported for the onboarding page. */
export function windowsDpiCheck(scaleFactor: number): HealthCheckDto {
  return {
    id: 'win-dpi',
    ok: true,
    severity: 'warning',
    summary: `DPI awareness: per-monitor (display scale ${Math.round(scaleFactor * 100)} %); coordinates are recorded in physical pixels`,
  };
}

/** The host's checks for `platform` (none on Linux: the doctor covers it). */
export function hostHealthChecks(
  platform: NodeJS.Platform,
  apis: { mac?: MacPermissionApi; scaleFactor?: () => number },
): HealthCheckDto[] {
  if (platform === 'darwin' && apis.mac) {
    return macPermissionChecks(apis.mac);
  }
  if (platform === 'win32') {
    return [windowsDpiCheck(apis.scaleFactor?.() ?? 1)];
  }
  return [];
}

/** The page the app opens on: Health while a check of severity error fails (the onboarding,
 * also after the relaunch macOS forces), else the page it was given. */
export function firstPageUrl(pageUrl: string, checks: readonly HealthCheckDto[]): string {
  const blocked = checks.some((c) => !c.ok && c.severity === 'error');
  return blocked ? `${pageUrl.replace(/#.*$/, '')}#/health` : pageUrl;
}
