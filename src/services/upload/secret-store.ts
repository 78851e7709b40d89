// Upload credentials of the desktop app, kept in the library's settings table only as ciphertext
// from the OS keychain-backed cipher (Electron's safeStorage, injected by src/main). There is no
// plaintext fallback: without a real keychain the app asks for credentials each session.
import { AppError } from '../../shared/errors';
import type { Db } from '../../store';
import {
  UPLOAD_SETTING_KEYS,
  getUploadSetting,
  setUploadSetting,
} from '../../store/queries/uploads';
import { maskKeyId, type UploadAuth, type UploadCredentials } from './credentials';

/**
 * The subset of Electron's `safeStorage` we use; `src/main` passes `safeStorage` itself.
 * https://www.electronjs.org/docs/latest/api/safe-storage
 */
export interface SecretCipher {
  /** False until the app is ready, or when the OS offers no keychain. */
  isEncryptionAvailable(): boolean;
  encryptString(plainText: string): Buffer;
  decryptString(encrypted: Buffer): string;
  /** Linux only: `basic_text` means a hard-coded key (no keychain), which we refuse. */
  getSelectedStorageBackend?(): string;
}

/** What the settings row holds (never the secret in clear). */
type StoredBlob = {
  v: 1;
  /** Masked key id for the settings page ("AKIA…XY"). */
  keyHint: string;
  /** safeStorage ciphertext of the credentials JSON, base64. */
  ciphertext: string;
};

function requireCipher(cipher: SecretCipher): void {
  if (!cipher.isEncryptionAvailable()) {
    throw new AppError(
      'SECRET_STORAGE_UNAVAILABLE',
      'The system keychain is not available, so upload credentials cannot be stored safely; ' +
        'enter them for this session only, or unlock the keychain and try again.',
    );
  }
  const backend = cipher.getSelectedStorageBackend?.();
  if (backend === 'basic_text' || backend === 'unknown') {
    throw new AppError(
      'SECRET_STORAGE_UNAVAILABLE',
      `No keychain (safeStorage backend "${backend}"): install and unlock GNOME Keyring or ` +
        'KWallet, or enter the credentials for this session only.',
    );
  }
}

// Encrypts and stores upload credentials in the library settings.
export function saveUploadCredentials(
  db: Db,
  cipher: SecretCipher,
  credentials: UploadCredentials,
): { keyHint: string } {
  requireCipher(cipher);
  const clear = JSON.stringify({
    accessKeyId: credentials.accessKeyId,
    secretAccessKey: credentials.secretAccessKey,
    ...(credentials.sessionToken ? { sessionToken: credentials.sessionToken } : {}),
  });
  const blob: StoredBlob = {
    v: 1,
    keyHint: maskKeyId(credentials.accessKeyId),
    ciphertext: cipher.encryptString(clear).toString('base64'),
  };
  setUploadSetting(db, UPLOAD_SETTING_KEYS.credentials, blob);
  return { keyHint: blob.keyHint };
}

// The masked key id of the stored credentials, or null (for the settings page; no decryption).
export function storedCredentialsHint(db: Db): string | null {
  const blob = getUploadSetting(db, UPLOAD_SETTING_KEYS.credentials) as StoredBlob | undefined;
  return blob?.keyHint ?? null;
}

// Decrypts the stored credentials, or null when none are stored.
export function loadUploadCredentials(db: Db, cipher: SecretCipher): UploadCredentials | null {
  const blob = getUploadSetting(db, UPLOAD_SETTING_KEYS.credentials) as StoredBlob | undefined;
  if (!blob) {
    return null;
  }
  requireCipher(cipher);
  let parsed: unknown;
  try {
    parsed = JSON.parse(cipher.decryptString(Buffer.from(blob.ciphertext, 'base64')));
  } catch (e) {
    throw new AppError(
      'SECRET_STORAGE_UNAVAILABLE',
      `The stored upload credentials cannot be decrypted (${(e as Error).message}); the keychain ` +
        'changed. Enter them again.',
    );
  }
  const c = parsed as Partial<UploadCredentials>;
  if (typeof c.accessKeyId !== 'string' || typeof c.secretAccessKey !== 'string') {
    throw new AppError('SECRET_STORAGE_UNAVAILABLE', 'The stored upload credentials are damaged.');
  }
  return {
    accessKeyId: c.accessKeyId,
    secretAccessKey: c.secretAccessKey,
    ...(typeof c.sessionToken === 'string' ? { sessionToken: c.sessionToken } : {}),
  };
}

// Forgets the stored credentials.
export function clearUploadCredentials(db: Db): void {
  setUploadSetting(db, UPLOAD_SETTING_KEYS.credentials, undefined);
}

// An UploadAuth that decrypts the stored credentials when a client first signs a request (the
// secret lives only in that client's memory, never in the database in clear).
export function storedCredentialsAuth(db: Db, cipher: SecretCipher): UploadAuth {
  return {
    kind: 'provider',
    provide: () => {
      const c = loadUploadCredentials(db, cipher);
      if (!c) {
        return Promise.reject(
          new AppError('UPLOAD_AUTH', 'No upload credentials are stored; enter them in Settings.'),
        );
      }
      return Promise.resolve(c);
    },
  };
}
