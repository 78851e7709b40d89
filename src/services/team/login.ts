// Signing the CLI in to a hub and out again: a password sign-in (a session), then an API token
// named after this machine, stored beside the library (credentials.ts); the session ends at
// once, the token is what later commands use. docs/team-mode.md §12.
import { hostname } from 'node:os';
import type { HubMe, HubRole } from '../../shared/contract/hub';
import { AppError, isAppError } from '../../shared/errors';
import { createHubClient } from './client';
import { credentialStoreOf, type HubCredentialStore } from './credential-store';

/** What a sign-in stored. */
export type LoginResult = {
  url: string;
  user: string;
  roles: HubRole[];
  tokenName: string;
  /** Where the token was stored (the credentials file, for the CLI). */
  file: string;
  passwordChanged: boolean;
};

/** Signs in with a password, changes a one-time password when `newPassword` is given, creates
 * an API token for this machine and stores it beside the library. */
export async function loginToHub(input: {
  url: string;
  user: string;
  password: string;
  newPassword?: string;
  /** The library whose file store keeps the token, or the host's own store. */
  libraryDir: string | HubCredentialStore;
  machine?: string;
}): Promise<LoginResult> {
  const store = credentialStoreOf(input.libraryDir);
  const client = createHubClient({ url: input.url, client: store.client });
  const session = await client.call('auth:login', { user: input.user, password: input.password });
  try {
    let passwordChanged = false;
    if (session.mustChangePassword) {
      if (input.newPassword === undefined) {
        throw new AppError(
          'PASSWORD_CHANGE_REQUIRED',
          `${input.user} signed in with a one-time password, which must be changed first`,
          { user: input.user },
          'Run login again with --new-password and give the one-time password on the first ' +
            'line of standard input and the new one (at least 12 characters) on the second.',
        );
      }
      await client.call('auth:change-password', {
        current: input.password,
        next: input.newPassword,
      });
      passwordChanged = true;
    }
    const tokenName = `${store.client}@${input.machine ?? hostname()}`.slice(0, 100);
    const token = await client.call('tokens:create', { name: tokenName });
    const file = await store.save({
      url: client.url,
      user: session.user,
      tokenId: token.id,
      token: token.token,
      createdAtMs: Date.now(),
    });
    return {
      url: client.url,
      user: session.user,
      roles: session.roles,
      tokenName,
      file,
      passwordChanged,
    };
  } finally {
    // the session served only to make the token; a failure to end it leaves it to expire
    await client.call('auth:logout', {}).catch(() => undefined);
  }
}

/** Who the stored token signs in as, asked of the hub. */
export async function whoAmI(
  libraryDir: string | HubCredentialStore,
  options: { timeoutMs?: number } = {},
): Promise<HubMe & { url: string }> {
  const store = credentialStoreOf(libraryDir);
  const creds = await store.load();
  const client = createHubClient({
    url: creds.url,
    token: creds.token,
    client: store.client,
    ...options,
  });
  return { url: client.url, ...(await client.call('auth:whoami', {})) };
}

/** Revokes the stored token on the hub and deletes the file. A token the hub no longer accepts
 * (revoked, account removed) is forgotten too; an unreachable hub keeps the file (retry). */
export async function logoutFromHub(
  libraryDir: string | HubCredentialStore,
): Promise<{ url: string; user: string; revoked: boolean }> {
  const store = credentialStoreOf(libraryDir);
  const creds = await store.load();
  const client = createHubClient({ url: creds.url, token: creds.token, client: store.client });
  let revoked = false;
  try {
    revoked = (await client.call('auth:logout', {})).revoked;
  } catch (e) {
    if (!isAppError(e, 'UNAUTHORIZED')) {
      throw e;
    }
  }
  await store.clear();
  return { url: client.url, user: creds.user, revoked };
}
