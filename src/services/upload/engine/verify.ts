// Verification after the transfer: every object is proven to hold our bytes by its size and its
// ETag (the MD5 of a single PUT, or the multipart MD5 of the acknowledged part ETags), from one
// listing; HEAD decides where the listing disagrees (and checks the sha256 metadata), and the
// bytes are read back and hashed where the ETag proves nothing or in `download` mode.
import { createHash } from 'node:crypto';
import { AppError } from '../../../shared/errors';
import { sha256File } from '../../../pipeline/io/hash';
import { listUploadParts, type UploadObjectRecord } from '../../../store/queries/uploads';
import type { ObjectInfo } from '../object-store';
import { isSinglePut, multipartEtag } from '../part-plan';
import type { UploadRun } from './run-context';

// Reads back the size and ETag of every object in one listing, then checks each.
export async function verifyAll(run: UploadRun): Promise<void> {
  for (const o of run.objects) {
    if (!o.sha256) {
      // sent by a run that stopped before it finished hashing the file
      run.markObject(o, { sha256: await sha256File(run.filePath(o.path)) });
    }
  }
  const pending = run.objects.filter((o) => o.status !== 'verified');
  if (!pending.length) {
    return;
  }
  const listed = new Map<string, ObjectInfo>();
  await run.retrying('ListObjectsV2', async () => {
    listed.clear();
    for await (const info of run.store.listObjects(`${run.state.keyPrefix}/`, {
      signal: run.signal,
    })) {
      listed.set(info.key, info);
    }
  });
  await run.settleAll(
    pending.map((o) => () => verify(run, o, listed.get(run.key(o.relKey)) ?? null)),
  );
}

/**
 * Proves that the stored object holds our bytes: its size, and its ETag (the MD5 of a single
 * PUT, or for multipart the MD5 of the part ETags acknowledged after the server checked each
 * part's SHA-256). Where the listing disagrees, HEAD decides; where the ETag proves nothing
 * (opaque ETags, e.g. SSE-KMS) or in `download` mode, the bytes are read back and hashed.
 */
async function verify(
  run: UploadRun,
  o: UploadObjectRecord,
  listed: ObjectInfo | null,
): Promise<void> {
  const key = run.key(o.relKey);
  const fail = (problem: string) =>
    new AppError(
      'UPLOAD_VERIFY_FAILED',
      `${o.relKey} on ${run.store.description}: ${problem}; run the upload again.`,
      { key, problem },
    );
  const expectedEtag = isSinglePut(o.sizeBytes, o.partSizeBytes)
    ? (o.etag ?? '')
    : multipartEtag(listUploadParts(run.lib.db, run.row.id, o.relKey).map((p) => p.etag));
  let info = listed;
  if (!info || info.sizeBytes !== o.sizeBytes || info.etag !== expectedEtag) {
    info = await run.limiter.run(() =>
      run.retrying(`HeadObject ${o.relKey}`, () =>
        run.store.headObject(key, { signal: run.signal }),
      ),
    );
    if (info && info.metadata.sha256 !== undefined && info.metadata.sha256 !== o.sha256) {
      throw fail(`sha256 metadata ${info.metadata.sha256}, expected ${o.sha256}`);
    }
  }
  if (!info) {
    throw fail('the object is missing after the upload');
  }
  if (info.sizeBytes !== o.sizeBytes) {
    throw fail(`size ${info.sizeBytes} bytes, expected ${o.sizeBytes}`);
  }
  const etagProves = expectedEtag !== '' && info.etag === expectedEtag;
  if (!etagProves || run.options.verify === 'download') {
    const sha = await run.limiter.run(() =>
      run.retrying(`GetObject ${o.relKey}`, async () => {
        const hash = createHash('sha256');
        for await (const chunk of await run.store.getObject(key, { signal: run.signal })) {
          hash.update(chunk);
        }
        return hash.digest('hex');
      }),
    );
    run.downloadedForVerify += 1;
    if (sha !== o.sha256) {
      throw fail(`the stored bytes hash to ${sha}, expected ${o.sha256}`);
    }
  }
  run.markObject(o, { status: 'verified' });
}
