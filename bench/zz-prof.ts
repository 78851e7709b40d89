import { randomBytes } from 'node:crypto';
import fs from 'node:fs'; import os from 'node:os'; import path from 'node:path';
import { CreateBucketCommand, S3Client } from '@aws-sdk/client-s3';
import { importAgentNetFolder } from '../src/services/import/agentnet-import';
import { openLibrary } from '../src/services/library/library';
import { runUpload } from '../src/services/upload/engine';
import { enqueueUpload } from '../src/services/upload/queue';
import { S3ObjectStore } from '../src/services/upload/s3-client';
import { fixturePath } from '../tests/helpers/fixture';
import { startSwift } from '../tests/helpers/swift';
const swift = await startSwift();
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'zz-')); const lib = openLibrary(dir);
const c = new S3Client({ endpoint: swift.endpoint, region: 'us-east-1', forcePathStyle: true, credentials: swift.credentials });
await c.send(new CreateBucketCommand({ Bucket: 'bench' }));
const { id } = await importAgentNetFolder(lib, fixturePath('agentnet-raw/win10-display-settings'), { appVersion: 'b' });
const blob = path.join(dir, 'blob.bin'); fs.writeFileSync(blob, randomBytes(128 * 1024 * 1024));
for (const r of [0]) {
  const target = { endpoint: swift.endpoint, region: 'us-east-1', bucket: 'bench', prefix: 'e' + r, forcePathStyle: true };
  const { uploadId } = enqueueUpload(lib, id, { target, annotator: 'b' });
  const store = new S3ObjectStore(target, { kind: 'static', credentials: swift.credentials });
  const t0 = performance.now(); const marks: string[] = []; let lastPhase = '';
  await runUpload(lib, uploadId, store, { appVersion: 'b', partSizeBytes: 8 << 20, concurrency: 4, includeKeyframes: false, extraFiles: [{ relKey: 'extra/blob.bin', path: blob }], onProgress: (p) => { const k = p.phase + (p.detail.startsWith('building') ? ':build' : p.detail.startsWith('hashing') ? ':hash' : ''); if (k !== lastPhase) { marks.push(`${(performance.now() - t0).toFixed(0)} ${k}`); lastPhase = k; } } });
  marks.push(`${(performance.now() - t0).toFixed(0)} end`); console.log(marks.join(' | '));
}
lib.close(); await swift.stop();
