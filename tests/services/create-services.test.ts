// The composition root: one services instance per library and host owns the upload runner, the
// keyframe job runner and recorder sessions; close() stops them in order, twice is fine, and a
// call after it gets a coded error. Two instances on two libraries in one process share nothing.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServices, type Services } from '../../src/services/create-services';
import { importAgentNetFolder } from '../../src/services/import/agentnet-import';
import type { ObjectStore } from '../../src/services/upload/object-store';
import { abortedError } from '../../src/services/upload/retry';
import type { ApiEvent } from '../../src/shared/contract';
import { AppError, isAppError } from '../../src/shared/errors';
import { getUpload } from '../../src/store/queries/uploads';
import { tempLibrary } from '../helpers/library';
import { FIXTURE_DIR } from '../helpers/paths';
import { until } from '../helpers/wait';

const a = tempLibrary();
const b = tempLibrary();
let idA = '';
let idB = '';

beforeAll(async () => {
  const ids = await Promise.all(
    [a, b].map(
      async (t) => (await importAgentNetFolder(t.lib, FIXTURE_DIR, { appVersion: 'test' })).id,
    ),
  );
  idA = ids[0]!;
  idB = ids[1]!;
}, 60_000);
afterAll(() => {
  a.cleanup();
  b.cleanup();
});

/**
 * A store whose bucket check hangs until the run is aborted (a slow network), so an upload stays
 * running until the services stop it. A check without a signal (the UI's reachability check)
 * passes at once. Counts the stores opened.
 */
function hangingStores(): { open: () => ObjectStore; opened: number[] } {
  const opened: number[] = [];
  const refuse = () => Promise.reject(new AppError('INTERNAL', 'not reached in this test'));
  return {
    opened,
    open: () => {
      opened.push(Date.now());
      const store: ObjectStore = {
        description: 's3://hang',
        checkBucket: (options?: { signal?: AbortSignal }) =>
          new Promise<void>((resolve, reject) => {
            const signal = options?.signal;
            if (!signal) {
              resolve();
              return;
            }
            signal.addEventListener('abort', () => reject(abortedError()), { once: true });
          }),
        putObject: refuse,
        createMultipartUpload: refuse,
        uploadPart: refuse,
        listParts: refuse,
        completeMultipartUpload: refuse,
        abortMultipartUpload: refuse,
        headObject: refuse,
        getObject: refuse,
        deleteObject: refuse,
        listObjects: () => ({
          [Symbol.asyncIterator]: () => ({ next: refuse }),
        }),
        close: () => undefined,
      };
      return store;
    },
  };
}

function servicesOn(
  t: ReturnType<typeof tempLibrary>,
  stores: ReturnType<typeof hangingStores>,
): { services: Services; events: [ApiEvent, unknown][] } {
  const events: [ApiEvent, unknown][] = [];
  const services = createServices(t.lib, {
    appVersion: '0.0.0-test',
    emit: (event, payload) => events.push([event, payload]),
    log: () => undefined,
    uploads: { openStore: stores.open },
    env: { AWS_ACCESS_KEY_ID: 'x', AWS_SECRET_ACCESS_KEY: 'y', AWS_REGION: 'us-east-1' },
  });
  return { services, events };
}

const TARGET = {
  endpoint: 'http://127.0.0.1:9',
  region: 'us-east-1',
  bucket: 'bucket',
  prefix: 'team',
  forcePathStyle: true,
};

describe('createServices', { timeout: 60_000 }, () => {
  it('close() stops a running upload (paused, resumable), twice is fine, later calls get INVALID_STATE', async () => {
    const stores = hangingStores();
    const { services, events } = servicesOn(a, stores);
    const listed = await services.dispatch('recordings:list', {});
    expect(listed.ok).toBe(true);

    const [queued] = services.uploads.enqueue([idA], { target: TARGET, annotator: 'ann' });
    const uploadId = queued!.uploadId;
    const outcome = services.uploads.run([uploadId]);
    await until(() => getUpload(a.lib.db, uploadId)?.status === 'preparing', 'the upload to run');
    expect(events.some(([e]) => e === 'uploads:progress')).toBe(true);

    // a keyframe job of the same library, queued or running when the services close
    const keyframes = services.keyframeJobs.enqueue(idA, { recompute: true });

    const first = services.close();
    const second = services.close();
    expect(second).toBe(first);
    await first;
    expect(services.closed).toBe(true);
    // the run was stopped, not left hanging: the waiting caller has its outcome, the row is paused
    await expect(outcome).resolves.toMatchObject([{ uploadId, ok: false }]);
    expect(getUpload(a.lib.db, uploadId)?.status).toBe('paused');
    await expect(keyframes).resolves.toMatchObject({ state: 'cancelled' });
    await services.close();

    const after = await services.dispatch('recordings:list', {});
    expect(after).toMatchObject({ ok: false, error: { code: 'INVALID_STATE' } });
    if (!after.ok) {
      expect(after.error.message).toMatch(/closed/);
      expect(after.error.fix).toMatch(/createServices/);
    }
    expect(() => services.uploads.enqueue([idA], { target: TARGET, annotator: 'ann' })).toThrow(
      /closed/,
    );
    const record = await services.record({ task: 'x' }).catch((e: unknown) => e);
    expect(isAppError(record, 'INVALID_STATE')).toBe(true);
  });

  it('close() drops uploads that wait behind the running one (they stay queued for the next run)', async () => {
    const stores = hangingStores();
    const { services } = servicesOn(a, stores);
    const other = { ...TARGET, prefix: 'second' };
    const [first] = services.uploads.enqueue([idA], {
      target: { ...TARGET, prefix: 'first' },
      annotator: 'ann',
    });
    const [second] = services.uploads.enqueue([idA], { target: other, annotator: 'ann' });
    const outcomes = services.uploads.run([first!.uploadId, second!.uploadId]);
    await until(
      () => getUpload(a.lib.db, first!.uploadId)?.status === 'preparing',
      'the first upload to run',
    );
    await services.close();
    const [o1, o2] = await outcomes;
    expect(o1).toMatchObject({ ok: false });
    expect(o2).toMatchObject({
      ok: false,
      code: 'ABORTED',
      error: expect.stringMatching(/closed/),
    });
    expect(getUpload(a.lib.db, second!.uploadId)?.status).toBe('queued');
    // the second never reached the store
    expect(stores.opened).toHaveLength(1);
  });

  it('two instances on two libraries share no state: uploads, events and close are per instance', async () => {
    const storesA = hangingStores();
    const storesB = hangingStores();
    const one = servicesOn(a, storesA);
    const two = servicesOn(b, storesB);
    // the UI's path: uploads:enqueue starts the upload in the background of instance one only
    const started = await one.services.dispatch('uploads:enqueue', {
      ids: [idA],
      to: 's3://bucket-two/p',
      annotator: 'ann',
    });
    expect(started.ok, JSON.stringify(started)).toBe(true);
    const uploadId = started.ok ? (started.value as { uploadId: number }[])[0]!.uploadId : 0;
    await until(() => getUpload(a.lib.db, uploadId)?.status === 'preparing', 'the upload to run');

    const listB = await two.services.dispatch('uploads:list', {});
    expect(listB).toEqual({ ok: true, value: [] });
    expect(two.events.filter(([e]) => e === 'uploads:progress')).toEqual([]);
    expect(one.events.filter(([e]) => e === 'uploads:progress').length).toBeGreaterThan(0);
    // a write through two goes to b and is announced by two only
    const oneEventsBefore = one.events.length;
    const renamed = await two.services.dispatch('recordings:update-task', {
      id: idB,
      task: 'renamed in b',
    });
    expect(renamed.ok).toBe(true);
    expect(two.events).toContainEqual(['recordings:changed', { id: idB }]);
    expect(one.events.slice(oneEventsBefore).some(([e]) => e === 'recordings:changed')).toBe(false);

    // closing two leaves one's upload running
    await two.services.close();
    expect(getUpload(a.lib.db, uploadId)?.status).toBe('preparing');
    expect((await one.services.dispatch('uploads:list', {})).ok).toBe(true);
    await one.services.close();
    expect(getUpload(a.lib.db, uploadId)?.status).toBe('paused');
    expect(storesB.opened).toEqual([]);
  });

  it('no module-level mutable state in src/services (a rule over the sources)', () => {
    const root = path.resolve(import.meta.dirname, '../../src/services');
    // process-wide by nature, not per library: staging folders this pid is writing
    const allowed = new Set(['export/export-stage.ts:liveStages']);
    const found: string[] = [];
    const walk = (dir: string): void => {
      for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
        const p = path.join(dir, e.name);
        if (e.isDirectory()) {
          walk(p);
          continue;
        }
        if (!e.name.endsWith('.ts')) {
          continue;
        }
        const rel = path.relative(root, p).split(path.sep).join('/');
        for (const line of fs.readFileSync(p, 'utf8').split('\n')) {
          // `let` at the top level, or an empty Map/Set/WeakMap/WeakSet made at the top level
          const m =
            /^(?:export )?let (\w+)/.exec(line) ??
            /^(?:export )?const (\w+)\s*(?::[^=]+)?=\s*new (?:Weak)?(?:Map|Set)\s*(?:<[^>]*>)?\(\s*\)/.exec(
              line,
            );
          if (m && !allowed.has(`${rel}:${m[1]}`)) {
            found.push(`${rel}: ${line.trim()}`);
          }
        }
      }
    };
    walk(root);
    expect(found).toEqual([]);
  });

  it('the CLI and the server import values from src/services and src/store only through the composition root', () => {
    const src = path.resolve(import.meta.dirname, '../../src');
    // value imports (static or dynamic) of a services or store module other than the root; type
    // imports are fine (erased)
    const staticImport =
      /^import (?!type )[^;]*?from '((?:\.\.\/)+(?:services|store)(?:\/[^']*)?)'/gm;
    const dynamicImport = /import\(\s*'((?:\.\.\/)+(?:services|store)(?:\/[^']*)?)'\s*\)/g;
    const found: string[] = [];
    let files = 0;
    for (const host of ['cli', 'server']) {
      const walk = (dir: string): void => {
        for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
          const p = path.join(dir, e.name);
          if (e.isDirectory()) {
            walk(p);
          } else if (e.name.endsWith('.ts')) {
            files += 1;
            const text = fs.readFileSync(p, 'utf8');
            for (const m of [...text.matchAll(staticImport), ...text.matchAll(dynamicImport)]) {
              if (!m[1]!.endsWith('/services/create-services')) {
                found.push(`${path.relative(src, p)}: ${m[1]}`);
              }
            }
          }
        }
      };
      walk(path.join(src, host));
    }
    expect(files).toBeGreaterThan(10);
    expect(found).toEqual([]);
    // the rule sees what it looks for: a value import of a service module is a finding
    const sample = "import { listLibrary } from '../../services/recordings';\n";
    expect([...sample.matchAll(staticImport)].map((m) => m[1])).toEqual([
      '../../services/recordings',
    ]);
  });
});
