import '../helpers/setup';
import { describe, expect, it } from 'vitest';
import type { SettingsDto } from '../../../src/shared/contract';
import {
  buildSettingsPatch,
  draftFrom,
  settingsFieldOf,
  settingsSelectors,
  useSettingsStore,
} from '../../../src/renderer/store/settings';
import { FakeFailure, installFakeApi } from '../helpers/fake-api';

const state = () => useSettingsStore.getState();

function settings(patch: Partial<SettingsDto> = {}): SettingsDto {
  return {
    annotator: 'ann',
    fps: 30,
    quality: 'standard',
    display: null,
    accessibility: true,
    countdownS: 3,
    hotkeys: { startStop: 'CommandOrControl+Alt+R', pause: 'CommandOrControl+Alt+P' },
    privacy: {
      excludeApps: [],
      excludeTitles: [],
      useDefaultExclusions: true,
      uploadRawFiles: true,
    },
    requireLabels: false,
    replayDisplay: '',
    uploadTarget: null,
    uploadEndpoint: null,
    hasUploadCredentials: false,
    canStoreCredentials: false,
    libraryDir: '/home/ann/cua-library',
    canChangeLibrary: false,
    ...patch,
  };
}

describe('buildSettingsPatch', () => {
  it('an unchanged draft makes an empty patch', () => {
    const saved = settings();
    expect(buildSettingsPatch(saved, draftFrom(saved))).toEqual({ patch: {}, errors: {} });
  });

  it('requireLabels (checks before submit) is sent when toggled, and shown from the settings', () => {
    const saved = settings();
    expect(draftFrom(settings({ requireLabels: true })).requireLabels).toBe(true);
    expect(buildSettingsPatch(saved, { ...draftFrom(saved), requireLabels: true })).toEqual({
      patch: { requireLabels: true },
      errors: {},
    });
  });

  it('replayDisplay (replay in the review UI) is sent trimmed when changed; empty turns it off', () => {
    const saved = settings();
    expect(draftFrom(settings({ replayDisplay: ':99' })).replayDisplay).toBe(':99');
    expect(buildSettingsPatch(saved, { ...draftFrom(saved), replayDisplay: ' :99 ' })).toEqual({
      patch: { replayDisplay: ':99' },
      errors: {},
    });
    const on = settings({ replayDisplay: ':99' });
    expect(buildSettingsPatch(on, { ...draftFrom(on), replayDisplay: '' }).patch).toEqual({
      replayDisplay: '',
    });
  });

  it('sends only changed fields; empty text clears nullable fields; numbers parsed', () => {
    const saved = settings({ uploadTarget: 's3://b/p', display: ':0' });
    const draft = {
      ...draftFrom(saved),
      annotator: '  ',
      fps: ' 15 ',
      display: '',
      uploadTarget: 's3://b/q',
      hotkeyPause: 'F9',
    };
    expect(buildSettingsPatch(saved, draft)).toEqual({
      patch: {
        annotator: null,
        fps: 15,
        display: null,
        uploadTarget: 's3://b/q',
        hotkeys: { startStop: 'CommandOrControl+Alt+R', pause: 'F9' },
      },
      errors: {},
    });
  });

  it.each([
    ['fps', '0', 'fps'],
    ['fps', '61', 'fps'],
    ['fps', '2.5', 'fps'],
    ['fps', '', 'fps'],
    ['countdownS', '11', 'countdownS'],
    ['hotkeyStartStop', ' ', 'hotkeys.startStop'],
  ] as const)('%s = %j is refused before sending (%s)', (key, value, field) => {
    const saved = settings();
    const { errors } = buildSettingsPatch(saved, { ...draftFrom(saved), [key]: value });
    expect(Object.keys(errors)).toEqual([field]);
  });

  it('credentials go only with both halves; forgetting sends null', () => {
    const saved = settings({ canStoreCredentials: true, hasUploadCredentials: true });
    const half = buildSettingsPatch(saved, { ...draftFrom(saved), accessKeyId: 'AK' });
    expect(half.errors.uploadCredentials).toMatch(/both/);
    const both = buildSettingsPatch(saved, {
      ...draftFrom(saved),
      accessKeyId: 'AK',
      secretAccessKey: 'SK',
    });
    expect(both.patch).toEqual({ uploadCredentials: { accessKeyId: 'AK', secretAccessKey: 'SK' } });
    const forget = buildSettingsPatch(saved, {
      ...draftFrom(saved),
      shouldForgetCredentials: true,
    });
    expect(forget.patch).toEqual({ uploadCredentials: null });
  });

  it.each([
    ['fps', 'fps'],
    ['hotkeys.pause', 'hotkeys.pause'],
    ['hotkeys', 'hotkeys.startStop'],
    ['uploadCredentials.secretAccessKey', 'uploadCredentials'],
    ['(payload)', null],
    [null, null],
  ])('service field %j is shown at %j', (path, field) => {
    expect(settingsFieldOf(path)).toBe(field);
  });
});

describe('settings store', () => {
  it('loads, saves the changed fields and shows what the service kept', async () => {
    const api = installFakeApi();
    let current = settings();
    api.on('settings:get', () => current);
    api.on('settings:set', (p) => (current = { ...current, ...(p as Partial<SettingsDto>) }));
    await state().load();
    expect(state().draft.fps).toBe('30');
    expect(settingsSelectors.canSave(state())).toBe(false);
    state().setField('fps', '10');
    state().setField('annotator', 'Ada');
    expect(settingsSelectors.canSave(state())).toBe(true);
    await state().save();
    expect(api.calls.at(-1)).toEqual({
      method: 'settings:set',
      payload: { annotator: 'Ada', fps: 10 },
    });
    expect(state().saveStatus).toBe('saved');
    expect(state().settings?.fps).toBe(10);
    expect(settingsSelectors.isDirty(state())).toBe(false);
  });

  it("a field the service refuses shows the service's message at that field, with the fix", async () => {
    const api = installFakeApi();
    api.on('settings:get', () => settings({ canStoreCredentials: true }));
    api.on('settings:set', () => {
      throw new FakeFailure(
        'PERMISSION_DENIED',
        'This host cannot keep upload credentials: it has no secret store',
        { field: 'uploadCredentials' },
        'Save credentials in the desktop app, or give them to `cua-annotator upload`.',
      );
    });
    await state().load();
    state().setField('accessKeyId', 'AK');
    state().setField('secretAccessKey', 'SK');
    await state().save();
    expect(state().saveStatus).toBe('error');
    expect(state().fieldErrors).toEqual({
      uploadCredentials: 'This host cannot keep upload credentials: it has no secret store',
    });
    expect(state().error?.fix).toMatch(/desktop app/);
    // editing the field clears its error
    state().setField('secretAccessKey', 'SK2');
    expect(state().fieldErrors).toEqual({});
  });

  it('an invalid payload names the field; a local check never calls the service', async () => {
    const api = installFakeApi();
    api.on('settings:get', () => settings());
    api.on('settings:set', () => {
      throw new FakeFailure(
        'INVALID_PAYLOAD',
        'Invalid settings:set payload: display must be a display name like :0',
        { method: 'settings:set', field: 'display' },
      );
    });
    await state().load();
    state().setField('fps', 'abc');
    await state().save();
    expect(api.methods()).not.toContain('settings:set');
    expect(state().fieldErrors.fps).toMatch(/whole number/);
    state().setField('fps', '30');
    state().setField('display', ':0 x');
    await state().save();
    expect(state().fieldErrors).toEqual({
      display: 'Invalid settings:set payload: display must be a display name like :0',
    });
    expect(state().error?.code).toBe('INVALID_PAYLOAD');
    state().revert();
    expect(state().draft.display).toBe('');
    expect(state().fieldErrors).toEqual({});
  });

  it('a failed load shows its error', async () => {
    const api = installFakeApi();
    api.on('settings:get', () => {
      throw new FakeFailure('DB_BUSY', 'The library is busy', undefined, 'Try again.');
    });
    await state().load();
    expect(state().loadStatus).toBe('error');
    expect(state().error).toEqual({
      code: 'DB_BUSY',
      message: 'The library is busy',
      fix: 'Try again.',
    });
  });
});
