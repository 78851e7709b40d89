// The desktop app's hub sign-in store (src/main/hub-credential-store.ts) against the mocked
// electron: the token is written only as safeStorage ciphertext (0600, atomically, one file per
// library), read back through it, and refused — nothing written — when safeStorage has no real
// keychain (unavailable, or Linux's basic_text backend).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

// a reversible "cipher" standing in for the OS keychain: never the clear text on disk
const keychain = vi.hoisted(() => ({ available: true, backend: 'gnome_libsecret' }));
vi.mock('electron', () => ({
  safeStorage: {
    isEncryptionAvailable: () => keychain.available,
    getSelectedStorageBackend: () => keychain.backend,
    encryptString: (text: string) => Buffer.from(`k1:${Buffer.from(text).toString('base64')}`),
    decryptString: (data: Buffer) => {
      const s = data.toString();
      if (!s.startsWith('k1:')) {
        throw new Error('Error while decrypting the ciphertext provided to safeStorage');
      }
      return Buffer.from(s.slice(3), 'base64').toString();
    },
  },
}));

const { safeStorage } = await import('electron');
const { safeStorageCredentialStore, signInFile } =
  await import('../../src/main/hub-credential-store');

const CREDS = {
  url: 'http://127.0.0.1:8470',
  user: 'ann',
  tokenId: 3,
  token: 'cuah_secret-token-value-0123456789',
  createdAtMs: 1_700_000_000_000,
};

let userData: string;
beforeEach(() => {
  userData = fs.mkdtempSync(path.join(os.tmpdir(), 'cua-hub-store-'));
  keychain.available = true;
  keychain.backend = 'gnome_libsecret';
});
afterEach(() => fs.rmSync(userData, { recursive: true, force: true }));

const storeOf = (libraryDir = '/data/lib-a', platform: NodeJS.Platform = 'linux') =>
  safeStorageCredentialStore(safeStorage, { userDataDir: userData, libraryDir, platform });

describe('the app’s hub credential store (safeStorage)', () => {
  it('keeps only ciphertext, 0600, and reads the sign-in back', async () => {
    const store = storeOf();
    expect(store.client).toBe('app');
    expect(store.describe()).toMatch(/keychain/);
    const file = await store.save(CREDS);
    expect(file).toBe(signInFile(userData, '/data/lib-a'));
    const bytes = fs.readFileSync(file, 'utf8');
    expect(bytes).not.toContain(CREDS.token);
    expect(bytes).not.toContain('ann');
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    // written whole: no temp file left beside it
    expect(fs.readdirSync(path.dirname(file))).toEqual([path.basename(file)]);
    await expect(store.load()).resolves.toEqual(CREDS);
    // another library has its own sign-in
    await expect(storeOf('/data/lib-b').load()).rejects.toMatchObject({
      code: 'HUB_NOT_SIGNED_IN',
    });
  });

  it('says how to sign in when nothing is stored; sign-out forgets it', async () => {
    const store = storeOf();
    await expect(store.load()).rejects.toMatchObject({
      code: 'HUB_NOT_SIGNED_IN',
      fix: expect.stringMatching(/Team page/) as unknown,
    });
    await store.save(CREDS);
    expect(await store.clear()).toBe(true);
    expect(await store.clear()).toBe(false);
    await expect(store.load()).rejects.toMatchObject({ code: 'HUB_NOT_SIGNED_IN' });
  });

  it('refuses to store the token without a keychain (nothing written), with a fix', async () => {
    keychain.available = false;
    const store = storeOf();
    await expect(store.save(CREDS)).rejects.toMatchObject({
      code: 'SECRET_STORAGE_UNAVAILABLE',
      fix: expect.stringMatching(/GNOME Keyring or KWallet/) as unknown,
    });
    keychain.available = true;
    keychain.backend = 'basic_text';
    await expect(store.save(CREDS)).rejects.toMatchObject({
      code: 'SECRET_STORAGE_UNAVAILABLE',
      message: expect.stringMatching(/basic_text/) as unknown,
    });
    expect(fs.existsSync(path.join(userData, 'hub-sign-in'))).toBe(false);
    // the backend is a Linux notion: elsewhere availability alone decides
    await expect(storeOf('/data/lib-a', 'darwin').save(CREDS)).resolves.toBeTruthy();
  });

  it('a sign-in the keychain cannot decrypt any more asks for a new sign-in', async () => {
    const store = storeOf();
    const file = await store.save(CREDS);
    fs.writeFileSync(file, 'not ciphertext of ours');
    await expect(store.load()).rejects.toMatchObject({
      code: 'HUB_NOT_SIGNED_IN',
      fix: expect.stringMatching(/[Ss]ign in again/) as unknown,
    });
  });
});
