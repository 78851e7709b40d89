// Where a host keeps its hub sign-in (docs/team-mode.md §14): a port the composition root is
// given. The CLI and `serve` keep the API token in the 0600 file beside the library
// (credentials.ts); the desktop app keeps it encrypted by the OS keychain through Electron's
// safeStorage (src/main/hub-credential-store.ts). The team services only load, save and clear.
import type { HubCredentials } from './credentials';
import {
  credentialsPath,
  deleteCredentials,
  loadCredentials,
  saveCredentials,
} from './credentials';

/** A host's keeper of the hub sign-in (one per library). */
export interface HubCredentialStore {
  /** Which client the hub's audit log names for calls with this token. */
  readonly client: 'cli' | 'app';
  /** Where the token lives, for messages ("a 0600 file: /home/a/lib.hub-credentials.json"). */
  describe(): string;
  /** The stored sign-in, or HUB_NOT_SIGNED_IN (with the host's fix). */
  load(): Promise<HubCredentials>;
  /** Stores a sign-in (replacing any); answers where. */
  save(creds: HubCredentials): Promise<string>;
  /** Forgets the sign-in; false when there was none. */
  clear(): Promise<boolean>;
}

/** The CLI's and serve's store: `<library>.hub-credentials.json`, mode 0600, written whole. */
export function fileCredentialStore(libraryDir: string): HubCredentialStore {
  return {
    client: 'cli',
    describe: () => `a file readable by you only (${credentialsPath(libraryDir)})`,
    load: () => loadCredentials(libraryDir),
    save: (creds) => saveCredentials(libraryDir, creds),
    clear: () => deleteCredentials(libraryDir),
  };
}

/** A store given, or the file store of the library at `libraryDir`. */
export function credentialStoreOf(where: string | HubCredentialStore): HubCredentialStore {
  return typeof where === 'string' ? fileCredentialStore(where) : where;
}
