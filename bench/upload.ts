// Benchmark: upload throughput of our engine against a plain @aws-sdk/client-s3 multipart upload
// of the same bytes to the same Swift (s3api on 127.0.0.1), in the same run, alternating.
//
// Payload: the fixture recording's submission (video, library files, table dumps, AgentNet
// export) plus a random blob (BENCH_BLOB_MIB, default 128). The submission is staged once and
// both sides send those very files. Both use 8 MiB parts and 4 requests in
// flight. "engine" = hashing every file, Content-MD5 + signed SHA-256 per request, SQLite
// journal per part, HEAD verification of every object and the manifest; "plain" = the SDK with
// default settings (CRC32 checksums), PutObject below the part size, multipart above it.
//   node bin/run-ts.mjs bench/upload.ts
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {
  CompleteMultipartUploadCommand,
  CreateBucketCommand,
  CreateMultipartUploadCommand,
  PutObjectCommand,
  S3Client,
  UploadPartCommand,
} from '@aws-sdk/client-s3';
import { importAgentNetFolder } from '../src/services/import/agentnet-import';
import { openLibrary } from '../src/services/library/library';
import { STAGE_MARKER, buildBundle } from '../src/services/upload/bundle';
import { runUpload } from '../src/services/upload/engine';
import { enqueueUpload } from '../src/services/upload/queue';
import { S3ObjectStore } from '../src/services/upload/s3-client';
import { createLimiter } from '../src/services/upload/limiter';
import { planParts } from '../src/services/upload/part-plan';
import { getUpload } from '../src/store/queries/uploads';
import { fixturePath } from '../tests/helpers/fixture';
import { startSwift } from '../tests/helpers/swift';

const MIB = 1024 * 1024;
const BLOB_MIB = Number(process.env.BENCH_BLOB_MIB ?? 128);
const ROUNDS = Number(process.env.BENCH_RUNS ?? 3);
const PART = 8 * MIB;
const CONCURRENCY = 4;
const BUCKET = 'bench';

const swift = await startSwift();
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cua-bench-upload-'));
const lib = openLibrary(dir);
try {
  const plain = new S3Client({
    endpoint: swift.endpoint,
    region: swift.region,
    forcePathStyle: true,
    credentials: swift.credentials,
  });
  await plain.send(new CreateBucketCommand({ Bucket: BUCKET }));
  const { id } = await importAgentNetFolder(
    lib,
    fixturePath('agentnet-raw/win10-display-settings'),
    {
      appVersion: 'bench',
    },
  );
  const blob = path.join(dir, 'blob.bin');
  fs.writeFileSync(blob, randomBytes(BLOB_MIB * MIB));
  const extraFiles = [{ relKey: 'extra/blob.bin', path: blob }];

  // stage the submission once; keep a copy so the plain upload sends the same files
  const copyDir = path.join(dir, 'staged-copy');
  const b0 = performance.now();
  const bundle = await buildBundle(lib, id, copyDir, {
    appVersion: 'bench',
    includeKeyframes: false,
    extraFiles,
  });
  const buildMs = performance.now() - b0;
  const files = bundle.files.map((f) => ({
    key: f.relKey,
    file: path.isAbsolute(f.path) ? f.path : lib.resolve(f.path),
  }));
  const bytes = files.reduce((n, f) => n + fs.statSync(f.file).size, 0);

  async function engineRound(
    round: number,
  ): Promise<{ totalMs: number; verifyMs: number; prepareMs: number }> {
    const target = {
      endpoint: swift.endpoint,
      region: swift.region,
      bucket: BUCKET,
      prefix: `engine-${round}`,
      forcePathStyle: true,
    };
    const { uploadId } = enqueueUpload(lib, id, { target, annotator: 'bench' });
    // hand the engine the staged submission (its marker names the staged files), so both sides
    // read the very same files and only the upload is timed
    const stage = lib.resolve(`uploads/${uploadId}`);
    fs.mkdirSync(stage, { recursive: true });
    fs.copyFileSync(path.join(copyDir, STAGE_MARKER), path.join(stage, STAGE_MARKER));
    const store = new S3ObjectStore(target, { kind: 'static', credentials: swift.credentials });
    let verifyStart = 0;
    let uploadStart = 0;
    const t0 = performance.now();
    await runUpload(lib, uploadId, store, {
      appVersion: 'bench',
      partSizeBytes: PART,
      concurrency: CONCURRENCY,
      includeKeyframes: false,
      extraFiles,
      onProgress: (p) => {
        if (p.phase === 'uploading' && !uploadStart) {
          uploadStart = performance.now();
        }
        if (p.phase === 'verifying' && !verifyStart) {
          verifyStart = performance.now();
        }
      },
    });
    const totalMs = performance.now() - t0;
    store.close();
    if (getUpload(lib.db, uploadId)?.status !== 'uploaded') {
      throw new Error('engine upload did not finish');
    }
    return {
      totalMs,
      verifyMs: performance.now() - verifyStart,
      prepareMs: uploadStart - t0,
    };
  }

  async function plainRound(round: number): Promise<number> {
    const limiter = createLimiter(CONCURRENCY);
    const t0 = performance.now();
    await Promise.all(
      files.map(async ({ key, file }) => {
        const size = fs.statSync(file).size;
        const Key = `plain-${round}/${key}`;
        if (size <= PART) {
          const Body = fs.readFileSync(file);
          await limiter.run(() => plain.send(new PutObjectCommand({ Bucket: BUCKET, Key, Body })));
          return;
        }
        const { UploadId } = await plain.send(
          new CreateMultipartUploadCommand({ Bucket: BUCKET, Key }),
        );
        const handle = fs.openSync(file, 'r');
        const parts = await Promise.all(
          planParts(size, PART).map((p) =>
            limiter.run(async () => {
              const Body = Buffer.alloc(p.sizeBytes);
              fs.readSync(handle, Body, 0, p.sizeBytes, p.offsetBytes);
              const out = await plain.send(
                new UploadPartCommand({
                  Bucket: BUCKET,
                  Key,
                  UploadId,
                  PartNumber: p.partNumber,
                  Body,
                }),
              );
              return { PartNumber: p.partNumber, ETag: out.ETag };
            }),
          ),
        );
        fs.closeSync(handle);
        await plain.send(
          new CompleteMultipartUploadCommand({
            Bucket: BUCKET,
            Key,
            UploadId,
            MultipartUpload: { Parts: parts },
          }),
        );
      }),
    );
    return performance.now() - t0;
  }

  const engine: { totalMs: number; verifyMs: number; prepareMs: number }[] = [];
  const sdk: number[] = [];
  await plainRound(-1); // warm-up: connections, Swift caches
  for (let round = 0; round < ROUNDS; round += 1) {
    sdk.push(await plainRound(round));
    engine.push(await engineRound(round));
  }
  plain.destroy();
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  const mbps = (ms: number) => bytes / 1e6 / (ms / 1000);
  const plainMs = median(sdk);
  const engineMs = median(engine.map((e) => e.totalMs));
  const verifyMs = median(engine.map((e) => e.verifyMs));
  const prepareMs = median(engine.map((e) => e.prepareMs));
  console.log(
    `Upload to Swift s3api on 127.0.0.1: ${files.length} files, ${(bytes / MIB).toFixed(1)} MiB ` +
      `(blob ${BLOB_MIB} MiB), 8 MiB parts, ${CONCURRENCY} in flight, median of ${ROUNDS} rounds`,
  );
  console.log(
    `  plain @aws-sdk/client-s3 multipart: ${mbps(plainMs).toFixed(1)} MB/s (${plainMs.toFixed(0)} ms)`,
  );
  console.log(
    `  cua-annotator engine:               ${mbps(engineMs).toFixed(1)} MB/s (${engineMs.toFixed(0)} ms, ` +
      `of which preparing ${prepareMs.toFixed(0)} ms, verification + manifest ${verifyMs.toFixed(0)} ms)`,
  );
  console.log(`  ratio engine / plain: ${(plainMs / engineMs).toFixed(2)}`);
  console.log(
    `  (building the submission — table dumps, AgentNet export — takes ${buildMs.toFixed(0)} ms ` +
      'once per recording and is not in either figure)',
  );
} finally {
  lib.close();
  fs.rmSync(dir, { recursive: true, force: true });
  await swift.stop();
}
