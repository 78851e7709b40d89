// The desktop app's hub sign-in (docs/team-mode.md §14): the API token is encrypted with
// Electron's safeStorage (the OS keychain: macOS Keychain, Windows DPAPI, libsecret or KWallet on
// Linux) and only the ciphertext is written, to `<userData>/hub-sign-in/<library key>.bin`
// (atomically, 0600), one per library folder. With no keychain (safeStorage unavailable, or
// Linux's `basic_text` backend: a hard-coded key) the app refuses to store the token at all
// (SECRET_STORAGE_UNAVAILABLE with the fix) rather than keep it in plain text.
// https://www.electronjs.org/docs/latest/api/safe-storage
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import type { SafeStorage } from 'electron';
import {
  parseCredentials,
  type HubCredentialStore,
  type HubCredentials,
} from '../services/create-services';
import { AppError } from '../shared/errors';

/** What the store uses of Electron's safeStorage. */
export type TokenCipher = Pick<
  SafeStorage,
  'isEncryptionAvailable' | 'encryptString' | 'decryptString'
> & { getSelectedStorageBackend?: () => string };

/** Options of {@link safeStorageCredentialStore}. */
export type SafeStorageStoreOptions = {
  /** The app's user-data folder (`app.getPath('userData')`). */
  userDataDir: string;
  /** The library the sign-in belongs to. */
  libraryDir: string;
  /** `process.platform` (the Linux backend check). */
  platform?: NodeJS.Platform;
};

const NOT_SIGNED_IN_FIX =
  'Open the Team page and sign in to your team’s hub (its address, your name, password).';

// Refuses when safeStorage would not really encrypt (no keychain).
function requireKeychain(cipher: TokenCipher, platform: NodeJS.Platform): void {
  if (!cipher.isEncryptionAvailable()) {
    throw new AppError(
      'SECRET_STORAGE_UNAVAILABLE',
      'the system keychain is not available, so the hub’s token cannot be stored safely',
      { platform },
      platform === 'linux'
        ? 'Install and unlock a keychain (GNOME Keyring or KWallet) and sign in again; or use ' +
            'the CLI (cua-annotator login), which keeps the token in a file only you can read.'
        : 'Unlock the system keychain and sign in again.',
    );
  }
  const backend = platform === 'linux' ? cipher.getSelectedStorageBackend?.() : undefined;
  if (backend === 'basic_text' || backend === 'unknown') {
    throw new AppError(
      'SECRET_STORAGE_UNAVAILABLE',
      `no keychain (safeStorage backend "${backend}": a built-in key, i.e. plain text), so ` +
        'the hub’s token is not stored',
      { backend },
      'Install and unlock GNOME Keyring or KWallet and restart the app, then sign in again; or ' +
        'use the CLI (cua-annotator login), which keeps the token in a file only you can read.',
    );
  }
}

/** The file holding the ciphertext of `libraryDir`'s sign-in. */
export function signInFile(userDataDir: string, libraryDir: string): string {
  const key = createHash('sha256').update(path.resolve(libraryDir)).digest('hex').slice(0, 24);
  return path.join(userDataDir, 'hub-sign-in', `${key}.bin`);
}

/** The app's credential store: the token encrypted by the OS keychain through safeStorage. */
export function safeStorageCredentialStore(
  cipher: TokenCipher,
  options: SafeStorageStoreOptions,
): HubCredentialStore {
  const platform = options.platform ?? process.platform;
  const file = signInFile(options.userDataDir, options.libraryDir);
  return {
    client: 'app',
    describe: () => 'the system keychain (Electron safeStorage)',
    load: async (): Promise<HubCredentials> => {
      let blob: Buffer;
      try {
        blob = await fs.readFile(file);
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code === 'ENOENT') {
          throw new AppError(
            'HUB_NOT_SIGNED_IN',
            'this library is not signed in to a team hub',
            { library: options.libraryDir },
            NOT_SIGNED_IN_FIX,
          );
        }
        throw e;
      }
      requireKeychain(cipher, platform);
      let creds: HubCredentials | null;
      try {
        creds = parseCredentials(JSON.parse(cipher.decryptString(blob)));
      } catch {
        creds = null;
      }
      if (!creds) {
        throw new AppError(
          'HUB_NOT_SIGNED_IN',
          'the stored sign-in cannot be read (the keychain changed, or the file is damaged)',
          { file },
          'Sign in again on the Team page.',
        );
      }
      return creds;
    },
    save: async (creds) => {
      requireKeychain(cipher, platform);
      const blob = cipher.encryptString(JSON.stringify(creds));
      await fs.mkdir(path.dirname(file), { recursive: true, mode: 0o700 });
      const temp = `${file}.${randomBytes(4).toString('hex')}.tmp`;
      try {
        await fs.writeFile(temp, blob, { mode: 0o600, flag: 'wx' });
        await fs.rename(temp, file);
      } catch (e) {
        await fs.rm(temp, { force: true });
        throw e;
      }
      return file;
    },
    clear: async () => {
      try {
        await fs.rm(file);
        return true;
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code === 'ENOENT') {
          return false;
        }
        throw e;
      }
    },
  };
}
