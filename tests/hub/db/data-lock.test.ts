// The embedded hub's data-folder lock (src/hub/db/data-lock.ts), in process: one holder, refusals
// naming the pid with a fix, release, stale locks (dead pid, pid reused, unreadable) taken over.
// Two real processes on one folder: tests/hub/hub-user-cli.test.ts.
import { spawnSync } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { acquireDataLock, DATA_LOCK_FILE } from '../../../src/hub/db';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'hub-lock-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

// the pid of a process that has ended (and been reaped)
function deadPid(): number {
  const child = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))']);
  return Number(child.stdout.toString());
}

describe('hub data-folder lock', () => {
  it('one holder at a time: a second opener gets HUB_DATA_LOCKED naming the pid, with a fix; release frees it', async () => {
    const first = await acquireDataLock(dir, { holder: 'cua-annotator hub', purpose: 'hub' });
    const stored = JSON.parse(await readFile(path.join(dir, DATA_LOCK_FILE), 'utf8'));
    expect(stored).toMatchObject({
      pid: process.pid,
      host: os.hostname(),
      holder: 'cua-annotator hub',
    });

    const refused = acquireDataLock(dir, { holder: 'cua-annotator hub user add', purpose: 'cli' });
    await expect(refused).rejects.toMatchObject({
      code: 'HUB_DATA_LOCKED',
      message: expect.stringContaining(`process ${process.pid}`),
      fix: expect.stringMatching(/Team page.*stop it/),
      details: { pid: process.pid, holder: 'cua-annotator hub' },
    });
    await expect(
      acquireDataLock(dir, { holder: 'second hub', purpose: 'hub' }),
    ).rejects.toMatchObject({
      code: 'HUB_DATA_LOCKED',
      fix: expect.stringMatching(/Only one hub.*another --data/),
    });

    await first.release();
    await first.release(); // twice is harmless
    const second = await acquireDataLock(dir, { holder: 'next' });
    expect(JSON.parse(await readFile(second.path, 'utf8')).nonce).toBe(second.owner.nonce);
    await second.release();
  });

  it("a dead process's lock is taken over; so is one whose pid now names another process", async () => {
    const file = path.join(dir, DATA_LOCK_FILE);
    const dead = deadPid();
    await writeFile(
      file,
      JSON.stringify({
        pid: dead,
        host: os.hostname(),
        holder: 'killed hub',
        startedAtMs: 1,
        nonce: 'old',
      }),
    );
    const lock = await acquireDataLock(dir, { holder: 'after the crash' });
    expect(lock.owner.pid).toBe(process.pid);
    await lock.release();

    // our own pid, but another process start time: the pid was reused, the holder is gone
    await writeFile(
      file,
      JSON.stringify({
        pid: process.pid,
        host: os.hostname(),
        holder: 'before a reboot',
        startedAtMs: 1,
        nonce: 'older',
        processStart: '1',
      }),
    );
    const again = await acquireDataLock(dir, { holder: 'after the reboot' });
    expect(again.owner.holder).toBe('after the reboot');
    await again.release();

    // not a lock this code writes (empty): nobody holds it
    await writeFile(file, '');
    const third = await acquireDataLock(dir, { holder: 'x' });
    await third.release();
  });

  it('a lock of another machine is not taken (its process cannot be checked): the fix says when to delete it', async () => {
    await writeFile(
      path.join(dir, DATA_LOCK_FILE),
      JSON.stringify({
        pid: 1,
        host: 'other-host.example',
        holder: 'hub',
        startedAtMs: 1,
        nonce: 'n',
      }),
    );
    await expect(acquireDataLock(dir, { holder: 'x' })).rejects.toMatchObject({
      code: 'HUB_DATA_LOCKED',
      message: expect.stringContaining('on other-host.example'),
      fix: expect.stringContaining(`delete ${path.join(dir, DATA_LOCK_FILE)}`),
    });
  });

  it('many openers at once over a stale lock: exactly one gets it', async () => {
    await writeFile(
      path.join(dir, DATA_LOCK_FILE),
      JSON.stringify({
        pid: deadPid(),
        host: os.hostname(),
        holder: 'dead',
        startedAtMs: 1,
        nonce: 's',
      }),
    );
    const results = await Promise.allSettled(
      Array.from({ length: 8 }, (_, i) => acquireDataLock(dir, { holder: `opener ${i}` })),
    );
    const won = results.filter((r) => r.status === 'fulfilled');
    expect(won).toHaveLength(1);
    for (const r of results) {
      if (r.status === 'rejected') {
        expect(r.reason).toMatchObject({ code: 'HUB_DATA_LOCKED' });
      }
    }
    await (
      won[0] as PromiseFulfilledResult<Awaited<ReturnType<typeof acquireDataLock>>>
    ).value.release();
  });
});
