// The desktop app's own health checks (macOS permissions, Windows DPI) over fake Electron APIs,
// and the one kind of external URL the app opens: a system settings pane from the onboarding.
import { describe, expect, it, vi } from 'vitest';
import {
  firstPageUrl,
  hostHealthChecks,
  isSettingsPaneUrl,
  MAC_PRIVACY_PANES,
  macPermissionChecks,
} from '../../src/main/permissions';
import { hardenWebContents, type HardenableWebContents } from '../../src/main/window-security';

describe('host health checks', () => {
  it('macOS: a missing permission fails with the pane that grants it; granted ones pass', () => {
    const denied = macPermissionChecks({
      isTrustedAccessibilityClient: () => false,
      getMediaAccessStatus: () => 'denied',
    });
    expect(denied.map((c) => [c.id, c.ok, c.severity])).toEqual([
      ['mac-accessibility', false, 'error'],
      ['mac-screen-recording', false, 'error'],
      ['mac-input-monitoring', true, 'warning'],
    ]);
    expect(denied[0]!.fix).toContain(MAC_PRIVACY_PANES.accessibility);
    expect(denied[1]!.fix).toContain(MAC_PRIVACY_PANES.screenRecording);
    expect(denied[1]!.fix).toMatch(/quit and reopen/);
    const prompt = vi.fn(() => true);
    const granted = macPermissionChecks({
      isTrustedAccessibilityClient: prompt,
      getMediaAccessStatus: () => 'granted',
    });
    expect(granted.every((c) => c.ok)).toBe(true);
    expect(granted[0]!.fix).toBeUndefined();
    // the check never raises macOS's own prompt
    expect(prompt).toHaveBeenCalledWith(false);
  });

  it('per platform: macOS permissions, Windows DPI, nothing extra on Linux', () => {
    const mac = { isTrustedAccessibilityClient: () => true, getMediaAccessStatus: () => 'granted' };
    expect(hostHealthChecks('darwin', { mac })).toHaveLength(3);
    const win = hostHealthChecks('win32', { scaleFactor: () => 1.5 });
    expect(win.map((c) => c.id)).toEqual(['win-dpi']);
    expect(win[0]!.summary).toContain('150 %');
    expect(hostHealthChecks('linux', { mac })).toEqual([]);
  });
});

describe('settings panes', () => {
  it('recognises only settings-pane URLs', () => {
    expect(isSettingsPaneUrl(MAC_PRIVACY_PANES.inputMonitoring)).toBe(true);
    expect(isSettingsPaneUrl('ms-settings:display')).toBe(true);
    expect(isSettingsPaneUrl('https://example.org')).toBe(false);
    expect(isSettingsPaneUrl('file:///etc/passwd')).toBe(false);
  });

  it('a page opening a settings pane hands it to the OS; any other window stays refused', () => {
    let handler: ((d: { url: string }) => { action: string }) | null = null;
    const contents = {
      on: () => contents,
      setWindowOpenHandler: (h: (d: { url: string }) => { action: string }) => {
        handler = h;
      },
    } as unknown as HardenableWebContents;
    const opened: string[] = [];
    const refused: string[] = [];
    hardenWebContents(contents, {
      appOrigin: 'cua-app://app',
      openSettingsPane: (url) => opened.push(url),
      onRefused: (_what, url) => refused.push(url),
    });
    expect(handler!({ url: MAC_PRIVACY_PANES.accessibility })).toEqual({ action: 'deny' });
    expect(handler!({ url: 'https://evil.example' })).toEqual({ action: 'deny' });
    expect(opened).toEqual([MAC_PRIVACY_PANES.accessibility]);
    expect(refused).toEqual(['https://evil.example']);
  });
});

describe('first page', () => {
  it('opens on Health while an OS permission is missing, else where it was asked', () => {
    const denied = macPermissionChecks({
      isTrustedAccessibilityClient: () => true,
      getMediaAccessStatus: () => 'not-determined',
    });
    expect(firstPageUrl('cua-app://app/index.html', denied)).toBe(
      'cua-app://app/index.html#/health',
    );
    expect(firstPageUrl('cua-app://app/index.html', [])).toBe('cua-app://app/index.html');
  });
});
