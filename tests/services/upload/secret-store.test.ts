// Stored upload credentials against the contract of Electron's safeStorage (Electron itself
// cannot run here): a keychain-backed cipher is required, the database never holds the secret.
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { S3ObjectStore } from '../../../src/services/upload/s3-client';
import {
  clearUploadCredentials,
  loadUploadCredentials,
  saveUploadCredentials,
  storedCredentialsAuth,
  storedCredentialsHint,
  type SecretCipher,
} from '../../../src/services/upload/secret-store';
import { isAppError } from '../../../src/shared/errors';
import type { Db } from '../../../src/store';
import { createTestDb } from '../../helpers/store';

/** A cipher with safeStorage's contract: AES-256-GCM under a key only it holds. */
function fakeSafeStorage(backend = 'gnome_libsecret', available = true): SecretCipher {
  const key = randomBytes(32);
  return {
    isEncryptionAvailable: () => available,
    getSelectedStorageBackend: () => backend,
    encryptString: (plain) => {
      const iv = randomBytes(12);
      const c = createCipheriv('aes-256-gcm', key, iv);
      const body = Buffer.concat([c.update(plain, 'utf8'), c.final()]);
      return Buffer.concat([iv, c.getAuthTag(), body]);
    },
    decryptString: (blob) => {
      const d = createDecipheriv('aes-256-gcm', key, blob.subarray(0, 12));
      d.setAuthTag(blob.subarray(12, 28));
      return Buffer.concat([d.update(blob.subarray(28)), d.final()]).toString('utf8');
    },
  };
}

const CREDS = {
  accessKeyId: 'AKIAEXAMPLEKEY123456',
  secretAccessKey: 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY',
  sessionToken: 'session-token-value',
};

function everythingInDb(db: Db): string {
  const tables = db.prepare(`SELECT name FROM sqlite_master WHERE type = 'table'`).all() as {
    name: string;
  }[];
  return tables
    .map((t) => JSON.stringify(db.prepare(`SELECT * FROM "${t.name}"`).all()))
    .join('\n');
}

const dbs: Db[] = [];
afterEach(() => {
  for (const db of dbs.splice(0)) {
    db.close();
  }
});
function db(): Db {
  const d = createTestDb();
  dbs.push(d);
  return d;
}

describe('stored upload credentials (safeStorage contract)', () => {
  it('round-trips through the cipher and never stores the secret in clear', () => {
    const d = db();
    const cipher = fakeSafeStorage();
    expect(saveUploadCredentials(d, cipher, CREDS)).toEqual({ keyHint: 'AKIA…56' });
    const dump = everythingInDb(d);
    for (const secret of [CREDS.secretAccessKey, CREDS.accessKeyId, CREDS.sessionToken]) {
      expect(dump).not.toContain(secret);
    }
    expect(storedCredentialsHint(d)).toBe('AKIA…56');
    expect(loadUploadCredentials(d, cipher)).toEqual(CREDS);
    clearUploadCredentials(d);
    expect(loadUploadCredentials(d, cipher)).toBeNull();
  });

  it('refuses to store without a keychain (no plaintext fallback)', () => {
    for (const cipher of [
      fakeSafeStorage('gnome_libsecret', false),
      fakeSafeStorage('basic_text'),
    ]) {
      const d = db();
      let caught: unknown;
      try {
        saveUploadCredentials(d, cipher, CREDS);
      } catch (e) {
        caught = e;
      }
      expect(isAppError(caught, 'SECRET_STORAGE_UNAVAILABLE')).toBe(true);
      expect(everythingInDb(d)).not.toContain(CREDS.secretAccessKey);
    }
  });

  it('reports a keychain change as undecryptable, and feeds the S3 client on demand', async () => {
    const d = db();
    saveUploadCredentials(d, fakeSafeStorage(), CREDS);
    let caught: unknown;
    try {
      loadUploadCredentials(d, fakeSafeStorage()); // another key
    } catch (e) {
      caught = e;
    }
    expect(isAppError(caught, 'SECRET_STORAGE_UNAVAILABLE')).toBe(true);

    const cipher = fakeSafeStorage();
    saveUploadCredentials(d, cipher, CREDS);
    const auth = storedCredentialsAuth(d, cipher);
    expect(auth.kind).toBe('provider');
    if (auth.kind === 'provider') {
      expect(await auth.provide()).toEqual(CREDS);
    }
    // the store builds its client from the provider without touching the secret itself
    const store = new S3ObjectStore(
      {
        endpoint: 'http://127.0.0.1:9',
        region: 'us-east-1',
        bucket: 'b1x',
        prefix: '',
        forcePathStyle: true,
      },
      auth,
    );
    expect(store.description).toBe('s3://b1x at http://127.0.0.1:9');
    store.close();
    clearUploadCredentials(d);
    const empty = storedCredentialsAuth(d, cipher);
    await expect(empty.kind === 'provider' ? empty.provide() : null).rejects.toThrow(
      /No upload credentials/,
    );
  });
});
