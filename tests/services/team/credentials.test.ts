// The team client's stored sign-in (a 0600 file beside the library) and its address and network
// errors, without a hub: what the CLI's login/whoami/logout build on.
import { chmod, mkdtemp, readdir, rm, stat, writeFile } from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createHubClient,
  credentialsPath,
  deleteCredentials,
  loadCredentials,
  normaliseHubUrl,
  saveCredentials,
} from '../../../src/services/team';

let dir: string;
const creds = {
  url: 'http://127.0.0.1:8470',
  user: 'ann',
  tokenId: 3,
  token: 'cuah_abc',
  createdAtMs: 1,
};

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'team-creds-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('team credentials and client', () => {
  it('stores the sign-in beside the library (not inside), mode 0600, whole; refuses a readable file; deletes it', async () => {
    const library = path.join(dir, 'lib');
    const file = await saveCredentials(library, creds);
    expect(file).toBe(path.join(dir, 'lib.hub-credentials.json'));
    expect(file).toBe(credentialsPath(library));
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    // no temp file left next to it
    expect((await readdir(dir)).sort()).toEqual(['lib.hub-credentials.json']);
    expect(await loadCredentials(library)).toEqual(creds);
    await chmod(file, 0o644);
    await expect(loadCredentials(library)).rejects.toMatchObject({ code: 'PERMISSION_DENIED' });
    await chmod(file, 0o600);
    await writeFile(file, '{"url": 1}', { mode: 0o600 });
    await expect(loadCredentials(library)).rejects.toMatchObject({ code: 'HUB_NOT_SIGNED_IN' });
    expect(await deleteCredentials(library)).toBe(true);
    expect(await deleteCredentials(library)).toBe(false);
    await expect(loadCredentials(library)).rejects.toMatchObject({
      code: 'HUB_NOT_SIGNED_IN',
      fix: expect.stringContaining('cua-annotator login'),
    });
  });

  it('hub addresses: http(s) only, no user/password/query; a trailing slash dropped', () => {
    expect(normaliseHubUrl('https://hub.example.org/')).toBe('https://hub.example.org');
    expect(normaliseHubUrl('http://127.0.0.1:8470/team/')).toBe('http://127.0.0.1:8470/team');
    for (const bad of ['ftp://x', 'hub.example.org', 'https://u:p@x', 'https://x/?a=1']) {
      expect(() => normaliseHubUrl(bad), bad).toThrow(expect.objectContaining({ code: 'USAGE' }));
    }
  });

  it('a hub that does not answer: HUB_UNREACHABLE with a fix; a non-hub answer too', async () => {
    // a port nothing listens on: bind one, note it, close it
    const port = await new Promise<number>((resolve) => {
      const s = net.createServer().listen(0, '127.0.0.1', () => {
        const a = s.address() as net.AddressInfo;
        s.close(() => resolve(a.port));
      });
    });
    const client = createHubClient({ url: `http://127.0.0.1:${port}` });
    await expect(client.call('auth:whoami', {})).rejects.toMatchObject({
      code: 'HUB_UNREACHABLE',
      fix: expect.stringContaining('cua-annotator hub'),
    });
  });
});
