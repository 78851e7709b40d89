// `cua-annotator tokens list|create|revoke` and `cua-annotator audit` against a real hub (`hub
// --data DIR` as a child process), each command a separate CLI process of a signed-in library:
// a created token works on the hub and stops working the moment it is revoked; this library's
// own token is left to `logout`; another account's token is not found; the audit log is for
// admins only and filters by actor, action (exact or domain) and limit; --help and --json.
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli';
import { addHubUser, loginLibrary, startHubProcess, type HubProcess } from './hub-process';

let root: string;
let hub: HubProcess;
const libraryOf = (who: 'ann' | 'adm') => path.join(root, `library-${who}`);

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- CLI JSON is read freely
async function as(who: 'ann' | 'adm', args: string[]): Promise<any> {
  const run = await runCli([...args, '--library', libraryOf(who), '--json']);
  if (run.code !== 0) {
    throw new Error(`${args.join(' ')} as ${who} exited ${run.code}: ${run.stderr}`);
  }
  return JSON.parse(run.stdout);
}

async function whoamiWith(token: string): Promise<number> {
  const res = await fetch(`${hub.url}/api/auth:whoami`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: '{}',
  });
  await res.arrayBuffer();
  return res.status;
}

beforeAll(async () => {
  root = await mkdtemp(path.join(os.tmpdir(), 'hub-account-cli-'));
  const dataDir = path.join(root, 'hub-data');
  const annOtp = await addHubUser('ann', ['annotator'], ['--data', dataDir]);
  const admOtp = await addHubUser('adm', ['admin'], ['--data', dataDir]);
  hub = await startHubProcess(['--data', dataDir]);
  await loginLibrary(hub.url, 'ann', annOtp, libraryOf('ann'));
  await loginLibrary(hub.url, 'adm', admOtp, libraryOf('adm'));
}, 240_000);

afterAll(async () => {
  await hub?.stop();
  await rm(root, { recursive: true, force: true });
}, 60_000);

describe('tokens and audit on the CLI', () => {
  it('--help of both', async () => {
    const tokens = await runCli(['tokens', '--help']);
    expect(tokens.code).toBe(0);
    expect(tokens.stdout).toContain('cua-annotator tokens revoke ID');
    const audit = await runCli(['audit', '--help']);
    expect(audit.code).toBe(0);
    expect(audit.stdout).toContain('--action A');
  });

  it('tokens list / create / revoke: a created token works and stops at once when revoked; the library’s own is logout’s; another account’s is not found', async () => {
    const first = (await as('ann', ['tokens', 'list'])) as {
      tokens: { id: number; name: string; isThisLibrary: boolean; revokedAtMs: number | null }[];
    };
    expect(first.tokens).toHaveLength(1);
    expect(first.tokens[0]).toMatchObject({
      name: `cli@${os.hostname()}`,
      isThisLibrary: true,
      revokedAtMs: null,
    });
    const own = first.tokens[0]!.id;

    const created = (await as('ann', ['tokens', 'create', 'nightly-script'])) as {
      id: number;
      name: string;
      token: string;
    };
    expect(created.name).toBe('nightly-script');
    expect(created.token).toMatch(/^cuah_/);
    expect(await whoamiWith(created.token)).toBe(200);
    const listed = await runCli(['tokens', 'list', '--library', libraryOf('ann')]);
    expect(listed.stdout).toMatch(new RegExp(`^${own}\\t.*\\(this library\\)$`, 'm'));
    expect(listed.stdout).toMatch(new RegExp(`^${created.id}\\tnightly-script\\t`, 'm'));

    expect(await as('ann', ['tokens', 'revoke', String(created.id)])).toEqual({
      id: created.id,
      revoked: true,
    });
    expect(await whoamiWith(created.token)).toBe(401);
    const after = (await as('ann', ['tokens', 'list'])) as typeof first;
    expect(after.tokens.find((t) => t.id === created.id)?.revokedAtMs).toEqual(expect.any(Number));

    const self = await runCli(['tokens', 'revoke', String(own), '--library', libraryOf('ann')]);
    expect(self.code).toBe(2);
    expect(self.stderr).toContain('fix: Use `cua-annotator logout`');
    const admTokens = (await as('adm', ['tokens', 'list'])) as typeof first;
    const foreign = await runCli([
      'tokens',
      'revoke',
      String(admTokens.tokens[0]!.id),
      '--library',
      libraryOf('ann'),
    ]);
    expect(foreign.code).toBe(2);
    expect(foreign.stderr).toContain('NOT_FOUND');
    expect(await whoamiWith('cuah_not-a-token')).toBe(401);

    const bad = await runCli(['tokens', 'revoke', 'x1', '--library', libraryOf('ann')]);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('the token id must be an integer');
  });

  it('audit: admins only, by actor, action (exact or domain) and limit', async () => {
    const denied = await runCli(['audit', '--library', libraryOf('ann')]);
    expect(denied.code).toBe(2);
    expect(denied.stderr).toContain('FORBIDDEN');

    type Entry = { actor: string; action: string; target: string | null; client: string };
    const all = (await as('adm', ['audit'])).entries as Entry[];
    expect(all.map((e) => e.action)).toEqual(
      expect.arrayContaining(['token.create', 'token.revoke', 'auth.login']),
    );
    const tokenActions = (await as('adm', ['audit', '--action', 'token', '--actor', 'ann']))
      .entries as Entry[];
    // newest first: the revoke of nightly-script, its create, the login's cli token
    expect(tokenActions.map((e) => e.action)).toEqual([
      'token.revoke',
      'token.create',
      'token.create',
    ]);
    expect(new Set(tokenActions.map((e) => e.actor))).toEqual(new Set(['ann']));
    expect(tokenActions[0]!.client).toBe('cli');
    const revokes = (await as('adm', ['audit', '--action', 'token.revoke'])).entries as Entry[];
    expect(revokes).toHaveLength(1);
    expect((await as('adm', ['audit', '--limit', '2'])).entries).toHaveLength(2);
    // the audit call itself changes nothing: an unknown actor has no entries
    expect(await as('adm', ['audit', '--actor', 'nobody'])).toEqual({ entries: [] });
    const text = await runCli(['audit', '--action', 'token.revoke', '--library', libraryOf('adm')]);
    expect(text.stdout).toMatch(/\tann\ttoken\.revoke\t.*\tcli\t/);

    const zero = await runCli(['audit', '--limit', '0', '--library', libraryOf('adm')]);
    expect(zero.code).toBe(1);
    expect(zero.stderr).toContain('--limit must be an integer from 1 to 1000');
  });
});
