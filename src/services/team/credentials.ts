// The CLI's hub sign-in, stored beside the library: `<library>.hub-credentials.json` (for the
// library ~/cua-library: ~/cua-library.hub-credentials.json), mode 0600, written whole (temp file
// then rename). Beside, not inside: nothing that copies, exports or uploads the library can take
// it along; one per library, so two libraries can sign in to two hubs. docs/team-mode.md §12.
import { randomBytes } from 'node:crypto';
import { chmod, mkdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import * as v from 'valibot';
import { AppError } from '../../shared/errors';

/** The suffix of the credentials file after the library folder's path. */
export const CREDENTIALS_SUFFIX = '.hub-credentials.json';

const CredentialsSchema = v.strictObject({
  url: v.string(),
  user: v.string(),
  tokenId: v.number(),
  token: v.pipe(v.string(), v.startsWith('cuah_')),
  createdAtMs: v.number(),
});

/** A stored sign-in: the hub, the account, and its API token. */
export type HubCredentials = v.InferOutput<typeof CredentialsSchema>;

/** A stored sign-in read back (from a file or a keychain), or null when it is not one. */
export function parseCredentials(value: unknown): HubCredentials | null {
  const checked = v.safeParse(CredentialsSchema, value);
  return checked.success ? checked.output : null;
}

/** The credentials file of the library at `libraryDir`. */
export function credentialsPath(libraryDir: string): string {
  return `${path.resolve(libraryDir)}${CREDENTIALS_SUFFIX}`;
}

/** Writes the credentials (mode 0600, atomically). */
export async function saveCredentials(libraryDir: string, creds: HubCredentials): Promise<string> {
  const file = credentialsPath(libraryDir);
  await mkdir(path.dirname(file), { recursive: true });
  const temp = `${file}.${randomBytes(6).toString('hex')}.tmp`;
  try {
    await writeFile(temp, `${JSON.stringify(creds, null, 2)}\n`, { mode: 0o600, flag: 'wx' });
    // the umask cannot widen 0600, but an explicit chmod says so on every platform
    await chmod(temp, 0o600);
    await rename(temp, file);
  } catch (e) {
    await rm(temp, { force: true });
    throw e;
  }
  return file;
}

/** The stored credentials, or HUB_NOT_SIGNED_IN. A file others may read is refused. */
export async function loadCredentials(libraryDir: string): Promise<HubCredentials> {
  const file = credentialsPath(libraryDir);
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') {
      throw new AppError(
        'HUB_NOT_SIGNED_IN',
        `this library is not signed in to a hub (no ${file})`,
        { file },
        'Sign in: cua-annotator login URL --user NAME --password-stdin.',
      );
    }
    throw e;
  }
  if (process.platform !== 'win32' && ((await stat(file)).mode & 0o077) !== 0) {
    throw new AppError(
      'PERMISSION_DENIED',
      `${file} holds an API token but others may read it`,
      { file },
      `Make it private (chmod 600 ${file}), or sign in again.`,
    );
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = null;
  }
  const checked = v.safeParse(CredentialsSchema, parsed);
  if (!checked.success) {
    throw new AppError(
      'HUB_NOT_SIGNED_IN',
      `${file} is not a hub sign-in this version can read`,
      { file },
      'Sign in again: cua-annotator login URL --user NAME --password-stdin.',
    );
  }
  return checked.output;
}

/** Deletes the credentials file; false when there was none. */
export async function deleteCredentials(libraryDir: string): Promise<boolean> {
  const file = credentialsPath(libraryDir);
  try {
    await rm(file);
    return true;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') {
      return false;
    }
    throw e;
  }
}
