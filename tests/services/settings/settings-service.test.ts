// settings:get / settings:set through the services on a real library: defaults, a patch kept
// across a reopen, errors that name the field, all-or-nothing writes, and credentials kept only
// through a host's secret store, never in plain text.
import { afterEach, describe, expect, it } from 'vitest';
import { createServices, type Services } from '../../../src/services/create-services';
import { openLibrary } from '../../../src/services/library/library';
import type { SecretCipher } from '../../../src/services/upload/secret-store';
import type { SettingsDto } from '../../../src/shared/contract';
import { tempLibrary } from '../../helpers/library';

const libs: ReturnType<typeof tempLibrary>[] = [];
const open: Services[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((s) => s.close()));
  libs.splice(0).forEach((t) => t.cleanup());
});

/** A reversible stand-in for safeStorage (its output must not contain the clear text). */
const cipher: SecretCipher = {
  isEncryptionAvailable: () => true,
  encryptString: (clear) => Buffer.from(Buffer.from(clear, 'utf8').map((b) => b ^ 0x5a)),
  decryptString: (data) => Buffer.from(data.map((b) => b ^ 0x5a)).toString('utf8'),
};

function services(secretCipher?: SecretCipher) {
  const t = tempLibrary();
  libs.push(t);
  const s = createServices(t.lib, {
    appVersion: 'test',
    log: () => undefined,
    ...(secretCipher ? { secretCipher } : {}),
  });
  open.push(s);
  return { t, s };
}

async function call(s: Services, method: string, payload: unknown = {}) {
  return await s.dispatch(method, payload);
}

describe('settings', () => {
  it('starts from defaults and keeps a patch across a reopen of the library', async () => {
    const { t, s } = services();
    const first = await call(s, 'settings:get');
    expect(first.ok && (first.value as SettingsDto)).toMatchObject({
      annotator: null,
      fps: 30,
      accessibility: true,
      uploadTarget: null,
      hasUploadCredentials: false,
      canStoreCredentials: false,
    });
    const set = await call(s, 'settings:set', {
      annotator: 'alice',
      fps: 15,
      countdownS: 0,
      uploadTarget: 's3://bucket/team',
      uploadEndpoint: 'http://127.0.0.1:9000',
    });
    expect(set.ok, JSON.stringify(set)).toBe(true);
    const reopened = openLibrary(t.dir);
    try {
      const again = createServices(reopened, { appVersion: 'test', log: () => undefined });
      const got = await again.dispatch('settings:get', {});
      await again.close();
      expect(got.ok && (got.value as SettingsDto)).toMatchObject({
        annotator: 'alice',
        fps: 15,
        countdownS: 0,
        uploadTarget: 's3://bucket/team',
        uploadEndpoint: 'http://127.0.0.1:9000',
      });
    } finally {
      reopened.close();
    }
    // the annotator and target are the upload defaults `upload --save` also uses
    expect(s.uploadDefaults()).toMatchObject({
      annotator: 'alice',
      bucket: 'bucket',
      prefix: 'team',
    });
  });

  it('requireLabels (checks before submit) is false by default, kept when set, refused when not a boolean', async () => {
    const { s } = services();
    const first = await call(s, 'settings:get');
    expect(first.ok && (first.value as SettingsDto).requireLabels).toBe(false);
    const set = await call(s, 'settings:set', { requireLabels: true });
    expect(set.ok && (set.value as SettingsDto).requireLabels).toBe(true);
    const bad = await call(s, 'settings:set', { requireLabels: 'yes' });
    expect(!bad.ok && bad.error.message).toContain('requireLabels');
    // another patch keeps it
    await call(s, 'settings:set', { fps: 12 });
    const now = await call(s, 'settings:get');
    expect(now.ok && (now.value as SettingsDto)).toMatchObject({ fps: 12, requireLabels: true });
  });

  it('replayDisplay (replay in the review UI) is empty by default, kept when set, refused when not a display name', async () => {
    const { s } = services();
    const first = await call(s, 'settings:get');
    expect(first.ok && (first.value as SettingsDto).replayDisplay).toBe('');
    const set = await call(s, 'settings:set', { replayDisplay: ':99' });
    expect(set.ok && (set.value as SettingsDto).replayDisplay).toBe(':99');
    const bad = await call(s, 'settings:set', { replayDisplay: ':99; rm -rf /' });
    expect(!bad.ok && bad.error.message).toContain('replayDisplay');
    await call(s, 'settings:set', { fps: 12 });
    const kept = await call(s, 'settings:get');
    expect(kept.ok && (kept.value as SettingsDto)).toMatchObject({ fps: 12, replayDisplay: ':99' });
    const off = await call(s, 'settings:set', { replayDisplay: '' });
    expect(off.ok && (off.value as SettingsDto).replayDisplay).toBe('');
  });

  it('names the field of a bad value and writes nothing', async () => {
    const { s } = services();
    const bad = await call(s, 'settings:set', { fps: 500 });
    expect(!bad.ok && bad.error.code).toBe('INVALID_PAYLOAD');
    expect(!bad.ok && bad.error.message).toContain('fps');
    const badTarget = await call(s, 'settings:set', { uploadTarget: 'http://x' });
    expect(!badTarget.ok && badTarget.error.message).toContain('uploadTarget');
    const badAnnotator = await call(s, 'settings:set', { annotator: 'a/b', fps: 12 });
    expect(badAnnotator.ok).toBe(false);
    const now = await call(s, 'settings:get');
    expect(now.ok && (now.value as SettingsDto).fps).toBe(30);
  });

  it('refuses credentials without a secret store (the browser host) and keeps the rest as it was', async () => {
    const { s } = services();
    const r = await call(s, 'settings:set', {
      fps: 12,
      uploadCredentials: { accessKeyId: 'AKIAEXAMPLE', secretAccessKey: 'sekrit-value-123' },
    });
    expect(!r.ok && r.error.code).toBe('SECRET_STORAGE_UNAVAILABLE');
    expect(!r.ok && r.error.fix).toMatch(/desktop app|AWS_ACCESS_KEY_ID/);
    const now = await call(s, 'settings:get');
    expect(now.ok && (now.value as SettingsDto)).toMatchObject({
      fps: 30,
      hasUploadCredentials: false,
    });
  });

  it('keeps credentials encrypted through the host cipher; null forgets them', async () => {
    const { t, s } = services(cipher);
    const r = await call(s, 'settings:set', {
      uploadCredentials: { accessKeyId: 'AKIAEXAMPLE', secretAccessKey: 'sekrit-value-123' },
    });
    expect(r.ok && (r.value as SettingsDto)).toMatchObject({
      hasUploadCredentials: true,
      canStoreCredentials: true,
    });
    const stored = t.lib.db.prepare(`SELECT key, value_json FROM settings`).all() as {
      value_json: string;
    }[];
    expect(stored.length).toBeGreaterThan(0);
    for (const row of stored) {
      expect(row.value_json).not.toContain('sekrit-value-123');
    }
    const cleared = await call(s, 'settings:set', { uploadCredentials: null });
    expect(cleared.ok && (cleared.value as SettingsDto).hasUploadCredentials).toBe(false);
  });

  it('switches the library folder only through a host that can (the desktop app)', async () => {
    const { s } = services();
    const refused = await call(s, 'settings:set', { libraryDir: '/data/other' });
    expect(!refused.ok && refused.error.code).toBe('INVALID_STATE');
    expect(!refused.ok && refused.error.fix).toContain('--library');
    const relative = await call(s, 'settings:set', { libraryDir: 'not/absolute' });
    expect(!relative.ok && relative.error.message).toContain('libraryDir');

    const t = tempLibrary();
    libs.push(t);
    let next: string | null = null;
    const app = createServices(t.lib, {
      appVersion: 'test',
      log: () => undefined,
      libraryDirSetting: { next: () => next, set: (dir) => (next = dir) },
    });
    open.push(app);
    const before = await call(app, 'settings:get');
    expect(before.ok && (before.value as SettingsDto)).toMatchObject({
      libraryDir: t.lib.dir,
      canChangeLibrary: true,
    });
    const set = await call(app, 'settings:set', { libraryDir: '/data/other' });
    expect(set.ok && (set.value as SettingsDto).libraryDir).toBe('/data/other');
    expect(next).toBe('/data/other');
  });
});
