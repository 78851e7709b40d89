import { createHash, randomBytes } from 'node:crypto';
import { CompleteMultipartUploadCommand, CreateBucketCommand, CreateMultipartUploadCommand, S3Client, UploadPartCommand } from '@aws-sdk/client-s3';
import { S3ObjectStore } from '../src/services/upload/s3-client';
import { createLimiter } from '../src/services/upload/limiter';
import { startSwift } from '../tests/helpers/swift';
const swift = await startSwift();
const c = new S3Client({ endpoint: swift.endpoint, region: 'us-east-1', forcePathStyle: true, credentials: swift.credentials });
await c.send(new CreateBucketCommand({ Bucket: 'bench' }));
const store = new S3ObjectStore({ endpoint: swift.endpoint, region: 'us-east-1', bucket: 'bench', prefix: '', forcePathStyle: true }, { kind: 'static', credentials: swift.credentials });
const blob = randomBytes(128 << 20); const P = 8 << 20; const n = 16;
async function plain(k: string) { const lim = createLimiter(4); const { UploadId } = await c.send(new CreateMultipartUploadCommand({ Bucket: 'bench', Key: k }));
  const parts = await Promise.all(Array.from({ length: n }, (_, i) => lim.run(async () => { const Body = Buffer.from(blob.subarray(i * P, (i + 1) * P)); const o = await c.send(new UploadPartCommand({ Bucket: 'bench', Key: k, UploadId, PartNumber: i + 1, Body })); return { PartNumber: i + 1, ETag: o.ETag }; })));
  await c.send(new CompleteMultipartUploadCommand({ Bucket: 'bench', Key: k, UploadId, MultipartUpload: { Parts: parts } })); }
async function ours(k: string, md5on: boolean) { const lim = createLimiter(4); const { uploadId } = await store.createMultipartUpload(k, { metadata: {}, contentType: 'x' });
  const parts = await Promise.all(Array.from({ length: n }, (_, i) => lim.run(async () => { const body = Buffer.from(blob.subarray(i * P, (i + 1) * P)); const md5 = md5on ? createHash('md5').update(body).digest('base64') : ''; const sha = createHash('sha256').update(body).digest('hex');
    const o = await store.uploadPart(k, uploadId, i + 1, { body, md5Base64: md5 || undefined as any, sha256Hex: sha }); return { partNumber: i + 1, etag: o.etag }; })));
  await store.completeMultipartUpload(k, uploadId, parts); }
for (let r = 0; r < 3; r++) {
  let t = performance.now(); await plain('p' + r); const tp = performance.now() - t;
  t = performance.now(); await ours('o' + r, true); const to = performance.now() - t;
  t = performance.now(); await ours('n' + r, false); const tn = performance.now() - t;
  console.log(`plain ${tp.toFixed(0)} ours(md5) ${to.toFixed(0)} ours(no md5) ${tn.toFixed(0)}`);
}
store.close(); await swift.stop();
