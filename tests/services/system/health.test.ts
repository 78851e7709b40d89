// system:health through the services: the doctor's checks with their fixes, then the host's own
// (the desktop app's macOS permissions); a failed host check of severity error makes it not ok.
import { afterAll, describe, expect, it } from 'vitest';
import { createServices } from '../../../src/services/create-services';
import type { SystemHealthDto } from '../../../src/shared/contract';
import { tempLibrary } from '../../helpers/library';

const t = tempLibrary();
afterAll(() => t.cleanup());

describe('system:health', () => {
  it('lists the doctor checks (a missing display with its fix) and the host checks after them', async () => {
    const services = createServices(t.lib, {
      appVersion: 'test',
      log: () => undefined,
      // no X display: the display check fails and says how to get one
      env: { PATH: process.env.PATH },
      hostHealthChecks: () => [
        {
          id: 'mac-accessibility',
          ok: false,
          severity: 'error',
          summary: 'not granted',
          fix: 'grant it',
        },
      ],
    });
    try {
      const r = await services.dispatch('system:health', {});
      expect(r.ok, JSON.stringify(r)).toBe(true);
      const health = (r as { value: SystemHealthDto }).value;
      expect(health.ok).toBe(false);
      const display = health.checks.find((c) => c.id === 'display');
      expect(display?.ok).toBe(false);
      expect(display?.fix).toMatch(/Xvfb|DISPLAY/);
      expect(health.checks.at(-1)).toEqual({
        id: 'mac-accessibility',
        ok: false,
        severity: 'error',
        summary: 'not granted',
        fix: 'grant it',
      });
    } finally {
      await services.close();
    }
  });
});
