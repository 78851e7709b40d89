import '../helpers/setup';
import { describe, expect, it } from 'vitest';
import type { SystemHealthDto } from '../../../src/shared/contract';
import { healthSelectors, useHealthStore } from '../../../src/renderer/store/health';
import { FakeFailure, installFakeApi } from '../helpers/fake-api';

const state = () => useHealthStore.getState();

const HEALTH: SystemHealthDto = {
  ok: false,
  platform: 'linux',
  checks: [
    { id: 'ffmpeg', ok: true, severity: 'error', summary: 'ffmpeg 7.1 with x11grab' },
    {
      id: 'atspi',
      ok: false,
      severity: 'warning',
      summary: 'AT-SPI bus not reachable',
      fix: 'Install at-spi2-core.',
    },
    {
      id: 'display',
      ok: false,
      severity: 'error',
      summary: 'DISPLAY is not set',
      fix: 'Start from an X11 session.',
    },
  ],
};

describe('health store', () => {
  it('runs the checks; failures first, then warnings, then the passing ones', async () => {
    const api = installFakeApi();
    api.on('system:health', () => HEALTH);
    await state().check();
    expect(state().status).toBe('ready');
    expect(state().checkedAtMs).toBeGreaterThan(0);
    expect(healthSelectors.sortedChecks(state()).map((c) => c.id)).toEqual([
      'display',
      'atspi',
      'ffmpeg',
    ]);
    expect(healthSelectors.counts(state())).toEqual({ ok: 1, warn: 1, fail: 1 });
    expect(healthSelectors.os(state())).toBe('linux');
    await state().check();
    expect(api.methods()).toEqual(['system:health', 'system:health']);
  });

  it.each([
    ['darwin', 'macos'],
    ['macOS 14.4', 'macos'],
    ['win32', 'windows'],
    ['linux', 'linux'],
    ['freebsd', null],
  ] as const)('platform %s gets the %s steps', (platform, os) => {
    expect(healthSelectors.os({ ...state(), health: { ...HEALTH, platform } })).toBe(os);
  });

  it('a failed check run shows its code, message and fix', async () => {
    const api = installFakeApi();
    api.on('system:health', () => {
      throw new FakeFailure('PERMISSION_DENIED', 'loopback only', undefined, 'Use the local URL.');
    });
    await state().check();
    expect(state().status).toBe('error');
    expect(state().error).toEqual({
      code: 'PERMISSION_DENIED',
      message: 'loopback only',
      fix: 'Use the local URL.',
    });
  });
});
