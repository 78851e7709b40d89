import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { NativeHelperAdapter } from '../../../src/axtree/platform/native-helper';
import { AtspiAdapter } from '../../../src/axtree/platform/linux/atspi-adapter';
import { createAccessibilityAdapter } from '../../../src/recorder/accessibility/create-adapter';
import { isAppError } from '../../../src/shared/errors';
import { REPO_ROOT } from '../../helpers/paths';

const now = (): number => Number(process.hrtime.bigint()) / 1e6;

describe('createAccessibilityAdapter', () => {
  it('uses AT-SPI on Linux', () => {
    expect(createAccessibilityAdapter({ now, platform: 'linux' })).toBeInstanceOf(AtspiAdapter);
  });

  it('needs the helper path on macOS and Windows', () => {
    for (const platform of ['darwin', 'win32'] as const) {
      let error: unknown;
      try {
        createAccessibilityAdapter({ now, platform });
      } catch (e) {
        error = e;
      }
      expect(isAppError(error, 'ACCESSIBILITY_UNAVAILABLE')).toBe(true);
      expect((error as Error).message).toContain(`on ${platform} needs the native helper`);
    }
  });

  it('runs the helper it is given', async () => {
    const adapter = createAccessibilityAdapter({
      now,
      platform: 'darwin',
      helperPath: process.execPath,
      helperArgs: [path.join(REPO_ROOT, 'tests/fixtures/bin/fake-ax-helper.js')],
    });
    expect(adapter).toBeInstanceOf(NativeHelperAdapter);
    try {
      await expect(adapter.start()).resolves.toMatchObject({ backend: 'native-helper' });
      await expect(adapter.focusedIsSecure()).resolves.toBe(false);
    } finally {
      await adapter.stop();
    }
  });

  it('has nothing for other platforms', () => {
    expect(() => createAccessibilityAdapter({ now, platform: 'freebsd' })).toThrow(
      'no accessibility adapter for freebsd',
    );
  });
});
