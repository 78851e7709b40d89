// The signed-in account's API tokens and (admins) the hub's audit log, through the library's
// stored sign-in: `cua-annotator tokens list|create|revoke` and `cua-annotator audit`
// (docs/team-mode.md §14). HTTP only, like the rest of the team client.
import type { HubOutput } from '../../shared/contract/hub';
import { AppError } from '../../shared/errors';
import { createHubClient, type HubClient } from './client';
import { credentialStoreOf, type HubCredentialStore } from './credential-store';

async function accountClient(
  libraryDir: string | HubCredentialStore,
): Promise<{ client: HubClient; tokenId: number }> {
  const store = credentialStoreOf(libraryDir);
  const creds = await store.load();
  return {
    client: createHubClient({ url: creds.url, token: creds.token, client: store.client }),
    tokenId: creds.tokenId,
  };
}

/** A token as listed, marked when it is the one this library signs in with. */
export type ListedToken = HubOutput<'tokens:list'>['tokens'][number] & { isThisLibrary: boolean };

/** The signed-in account's API tokens (never the tokens themselves). */
export async function listHubTokens(
  libraryDir: string | HubCredentialStore,
): Promise<ListedToken[]> {
  const { client, tokenId } = await accountClient(libraryDir);
  const { tokens } = await client.call('tokens:list', {});
  return tokens.map((t) => ({ ...t, isThisLibrary: t.id === tokenId }));
}

/** A new API token of the signed-in account (shown once: the hub keeps its SHA-256 only). */
export async function createHubToken(
  libraryDir: string | HubCredentialStore,
  name: string,
): Promise<HubOutput<'tokens:create'>> {
  const { client } = await accountClient(libraryDir);
  return await client.call('tokens:create', { name });
}

/** Revokes one of the signed-in account's tokens; this library's own is `logout`'s. */
export async function revokeHubToken(
  libraryDir: string | HubCredentialStore,
  id: number,
): Promise<HubOutput<'tokens:revoke'>> {
  const { client, tokenId } = await accountClient(libraryDir);
  if (id === tokenId) {
    throw new AppError(
      'USAGE',
      `token ${id} is the one this library signs in with`,
      { id },
      'Use `cua-annotator logout` to revoke it and forget it here.',
    );
  }
  return await client.call('tokens:revoke', { id });
}

/** Filter of {@link listHubAudit}. */
export type HubAuditFilter = { actor?: string; action?: string; limit?: number };

/** The hub's audit log, newest first (admins). */
export async function listHubAudit(
  libraryDir: string | HubCredentialStore,
  filter: HubAuditFilter = {},
): Promise<HubOutput<'audit:list'>['entries']> {
  const { client } = await accountClient(libraryDir);
  const { entries } = await client.call('audit:list', {
    ...(filter.actor !== undefined ? { actor: filter.actor } : {}),
    ...(filter.action !== undefined ? { action: filter.action } : {}),
    ...(filter.limit !== undefined ? { limit: filter.limit } : {}),
  });
  return entries;
}
