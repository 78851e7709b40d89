// The privacy settings (exclusion rules at capture) through settings:get / settings:set on a real
// library: defaults on, a partial patch keeps the other fields, a bad title pattern is refused
// with the setting's name and nothing is written.
import { afterEach, describe, expect, it } from 'vitest';
import { createServices, type Services } from '../../../src/services/create-services';
import type { SettingsDto } from '../../../src/shared/contract';
import { tempLibrary } from '../../helpers/library';

const libs: ReturnType<typeof tempLibrary>[] = [];
const open: Services[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((s) => s.close()));
  libs.splice(0).forEach((t) => t.cleanup());
});

function services() {
  const t = tempLibrary();
  libs.push(t);
  const s = createServices(t.lib, { appVersion: 'test', log: () => undefined });
  open.push(s);
  return s;
}

describe('privacy settings', () => {
  it('start with the built-in exclusions and keep a partial patch', async () => {
    const s = services();
    const first = await s.dispatch('settings:get', {});
    expect(first.ok && (first.value as SettingsDto).privacy).toEqual({
      excludeApps: [],
      excludeTitles: [],
      useDefaultExclusions: true,
      uploadRawFiles: true,
    });
    const set = await s.dispatch('settings:set', {
      privacy: { excludeApps: ['signal'], excludeTitles: ['Online Banking'] },
    });
    expect(set.ok, JSON.stringify(set)).toBe(true);
    const off = await s.dispatch('settings:set', { privacy: { useDefaultExclusions: false } });
    expect(off.ok && (off.value as SettingsDto).privacy).toEqual({
      excludeApps: ['signal'],
      excludeTitles: ['Online Banking'],
      useDefaultExclusions: false,
      uploadRawFiles: true,
    });
  });

  it('refuse a bad title pattern naming the setting, and write nothing', async () => {
    const s = services();
    const bad = await s.dispatch('settings:set', {
      fps: 10,
      privacy: { excludeTitles: ['ok', 'Bank (online'] },
    });
    expect(!bad.ok && bad.error.code).toBe('EXCLUSION_RULE_INVALID');
    expect(!bad.ok && bad.error.message).toContain('privacy.excludeTitles "Bank (online"');
    expect(!bad.ok && bad.error.fix).toContain('privacy.excludeTitles');
    const after = await s.dispatch('settings:get', {});
    expect(after.ok && (after.value as SettingsDto).fps).toBe(30);
    expect(after.ok && (after.value as SettingsDto).privacy.excludeTitles).toEqual([]);
    const badShape = await s.dispatch('settings:set', { privacy: { excludeApps: [''] } });
    expect(!badShape.ok && badShape.error.code).toBe('INVALID_PAYLOAD');
  });
});
