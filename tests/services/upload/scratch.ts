import fs from 'node:fs'; import os from 'node:os'; import path from 'node:path';
import { S3Client, CreateBucketCommand } from '@aws-sdk/client-s3';
import { importAgentNetFolder } from '../../../src/services/import/agentnet-import';
import { enqueueUpload } from '../../../src/services/upload/queue';
import { runUpload } from '../../../src/services/upload/engine';
import { S3ObjectStore } from '../../../src/services/upload/s3-client';
import { tempLibrary } from '../../helpers/library';
import { FIXTURE_DIR } from '../../helpers/paths';
import { startSwift } from '../../helpers/swift';

const swift = await startSwift();
const t = tempLibrary();
try {
  const c = new S3Client({ endpoint: swift.endpoint, region: 'us-east-1', forcePathStyle: true, credentials: swift.credentials });
  await c.send(new CreateBucketCommand({ Bucket: 'subs' }));
  const { id } = await importAgentNetFolder(t.lib, FIXTURE_DIR, { appVersion: 'x' });
  const blob = path.join(t.dir, 'blob.bin'); fs.writeFileSync(blob, Buffer.alloc(23 * 1024 * 1024, 3));
  const target = { endpoint: swift.endpoint, region: 'us-east-1', bucket: 'subs', prefix: 'team/a', forcePathStyle: true };
  const e = enqueueUpload(t.lib, id, { target, annotator: 'alice' });
  console.log(e);
  const store = new S3ObjectStore(target, { kind: 'static', credentials: swift.credentials });
  const t0 = performance.now();
  const r = await runUpload(t.lib, e.uploadId, store, { appVersion: 'x', partSizeBytes: 5 * 1024 * 1024, includeKeyframes: false, extraFiles: [{ relKey: 'extra/blob.bin', path: blob }], onProgress: (p) => { if (!p.detail.startsWith('part') && !p.detail.startsWith('sent') && !p.detail.startsWith('hash')) console.log(p.phase, p.detail, p.bytesDone, p.bytesTotal); } });
  console.log(r, performance.now() - t0);
  await swift.settleLog();
  const reqs = swift.requests();
  console.log('requests', reqs.length, 'parts', reqs.filter(q => q.query.has('partNumber')).length);
  console.log(t.lib.db.prepare('select * from uploads').all());
} finally { t.cleanup(); await swift.stop(); }
