// The upload, uploads, pull and export-to-S3 commands, run as real CLI processes against Swift
// (endpoint, region and credentials from the standard AWS environment variables).
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type { S3Client } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openLibrary } from '../../src/services/library/library';
import { setReviewStatus } from '../../src/services/review-service';
import { runCli } from '../helpers/cli';
import { copyExampleLibrary } from '../helpers/example-library';
import { REPO_ROOT } from '../helpers/paths';
import { startSwift, type Swift } from '../helpers/swift';
import {
  createBucket,
  listObjects,
  objectSha256,
  objectText,
  rawClient,
} from '../services/upload/helpers';

const BUCKET = 'cli-subs';
let swift: Swift;
let client: S3Client;
const root = fs.mkdtempSync(path.join(os.tmpdir(), 'cua-cli-upload-'));
const libA = path.join(root, 'annotator');
const libB = path.join(root, 'reviewer');
let recordingId = '';

beforeAll(async () => {
  [swift] = await Promise.all([
    startSwift(),
    (async () => {
      recordingId = await copyExampleLibrary(libA);
      const lib = openLibrary(libA);
      try {
        setReviewStatus(lib, recordingId, { status: 'accepted', reviewer: 'rita' });
      } finally {
        lib.close();
      }
    })(),
  ]);
  client = rawClient(swift);
  await createBucket(client, BUCKET);
}, 60_000);

afterAll(async () => {
  client?.destroy();
  await swift?.stop();
  fs.rmSync(root, { recursive: true, force: true });
});

function cli(args: string[], env: NodeJS.ProcessEnv = {}) {
  return runCli(args, { ...swift.env, ...env });
}

describe('cua-annotator upload / uploads / pull / export --out s3://', { timeout: 180_000 }, () => {
  it('uploads accepted recordings with keyframes and exports, lists them, skips a second upload', async () => {
    const up = await cli([
      'upload',
      '--status',
      'accepted',
      '--to',
      `s3://${BUCKET}/team`,
      '--path-style',
      '--annotator',
      'alice',
      '--library',
      libA,
      '--json',
    ]);
    expect(up.code, up.stderr).toBe(0);
    const summary = JSON.parse(up.stdout);
    expect(summary).toMatchObject({
      target: `s3://${BUCKET}/team`,
      endpoint: swift.endpoint, // from AWS_ENDPOINT_URL
      annotator: 'alice',
      uploads: [{ recordingId, ok: true, result: { status: 'uploaded' } }],
    });
    const base = `team/alice/${recordingId}`;
    const manifest = JSON.parse(await objectText(client, BUCKET, `${base}/manifest.json`));
    const keyframes = manifest.files.filter((f: { role: string }) => f.role === 'keyframe');
    expect(keyframes.length).toBeGreaterThan(10);
    for (const p of [
      'agentnet/agentnet.jsonl',
      'agentnet/cot-input/win10-display-settings.jsonl',
    ]) {
      expect(
        manifest.files.some((f: { path: string }) => f.path === p),
        p,
      ).toBe(true);
    }
    const stored = await listObjects(client, BUCKET, `${base}/`);
    expect(stored.size).toBe(manifest.files.length + 1);
    const png = keyframes[0];
    expect(await objectSha256(client, BUCKET, `${base}/${png.path}`)).toBe(png.sha256);

    const list = await cli(['uploads', '--json', '--library', libA]);
    expect(list.code, list.stderr).toBe(0);
    const [row] = JSON.parse(list.stdout);
    expect(row).toMatchObject({
      recordingId,
      status: 'uploaded',
      target: `s3://${BUCKET}/team`,
      location: `s3://${BUCKET}/${base}/`,
      error: null,
    });
    expect(row.bytesDone).toBe(row.bytesTotal);
    expect(row.objectsVerified).toBe(row.objectsTotal);
    const table = await cli(['uploads', '--library', libA]);
    expect(table.stdout).toMatch(new RegExp(`${recordingId.slice(0, 8)}\\s+uploaded`));

    const again = await cli([
      'upload',
      recordingId.slice(0, 8),
      '--to',
      `s3://${BUCKET}/team`,
      '--path-style',
      '--annotator',
      'alice',
      '--library',
      libA,
    ]);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toContain('already uploaded');
  });

  it('pulls the submission into an empty reviewer library: the same recording', async () => {
    const pull = await cli([
      'pull',
      `s3://${BUCKET}/team`,
      '--path-style',
      '--library',
      libB,
      '--json',
    ]);
    expect(pull.code, pull.stderr).toBe(0);
    expect(JSON.parse(pull.stdout).items).toMatchObject([{ recordingId, status: 'imported' }]);
    const showA = await cli(['show', recordingId, '--json', '--library', libA]);
    const showB = await cli(['show', recordingId, '--json', '--library', libB]);
    expect(showB.code, showB.stderr).toBe(0);
    expect(JSON.parse(showB.stdout)).toEqual(JSON.parse(showA.stdout));
    const hash = (lib: string) =>
      createHash('sha256')
        .update(
          fs.readFileSync(
            path.join(lib, 'recordings', recordingId, 'raw', '2024-11-05 18-56-31.mp4'),
          ),
        )
        .digest('hex');
    expect(hash(libB)).toBe(hash(libA));
    const second = await cli(['pull', `s3://${BUCKET}/team`, '--path-style', '--library', libB]);
    expect(second.code).toBe(0);
    expect(second.stdout).toMatch(/skipped alice\/.*present/);
  });

  it('fails clearly with wrong credentials or a missing bucket; --save keeps defaults', async () => {
    const bad = await cli(
      [
        'upload',
        recordingId,
        '--to',
        `s3://${BUCKET}/bad`,
        '--path-style',
        '--annotator',
        'alice',
        '--library',
        libA,
      ],
      { AWS_SECRET_ACCESS_KEY: 'wrong-secret' },
    );
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/failed [0-9a-f]{8}: \[UPLOAD_AUTH\] .*refused the credentials/);
    const saved = await cli([
      'upload',
      recordingId,
      '--to',
      's3://no-such-bucket/x',
      '--path-style',
      '--annotator',
      'alice',
      '--save',
      '--library',
      libA,
    ]);
    expect(saved.code).toBe(2);
    expect(saved.stderr).toContain('[UPLOAD_BUCKET_NOT_FOUND]');
    // no flags: the saved target and annotator are used
    const again = await cli(['upload', recordingId, '--library', libA]);
    expect(again.code).toBe(2);
    expect(again.stderr).toMatch(/s3:\/\/no-such-bucket\/x .*does not exist/);
    const rows = JSON.parse((await cli(['uploads', '--json', '--library', libA])).stdout);
    const failed = rows.filter((r: { status: string }) => r.status === 'failed');
    expect(failed.map((r: { error: string }) => r.error.split(':')[0]).sort()).toEqual([
      'UPLOAD_AUTH',
      'UPLOAD_BUCKET_NOT_FOUND',
    ]);
    expect(rows.filter((r: { status: string }) => r.status === 'uploaded')).toHaveLength(1);
    expect((await listObjects(client, BUCKET, 'bad/')).size).toBe(0);
  });

  it('exports to s3:// with every object verified and cua-export.json last', async () => {
    const exp = await cli([
      'export',
      '--all',
      '--format',
      'agentnet-raw',
      '--out',
      `s3://${BUCKET}/exports/raw`,
      '--path-style',
      '--library',
      libA,
    ]);
    expect(exp.code, exp.stderr).toBe(0);
    expect(exp.stdout).toMatch(/exported 1 recording\(s\).*verified/);
    const index = JSON.parse(await objectText(client, BUCKET, 'exports/raw/cua-export.json'));
    expect(index).toMatchObject({ schema: 'cua-annotator/export', format: 'agentnet-raw' });
    const stored = await listObjects(client, BUCKET, 'exports/raw/');
    expect(stored.size).toBe(index.files.length + 1);
    for (const f of index.files) {
      expect(await objectSha256(client, BUCKET, `exports/raw/${f.path}`), f.path).toBe(f.sha256);
    }
    expect(index.files.map((f: { path: string }) => f.path)).toContain(
      'win10-display-settings/events.jsonl',
    );
  });

  it('Ctrl+C pauses a running upload and the command ends normally (resumable, not killed)', async () => {
    // a server that accepts connections and never answers: the upload stays under way
    const sockets: net.Socket[] = [];
    const hang = net.createServer((socket) => sockets.push(socket));
    await new Promise<void>((resolve) => hang.listen(0, '127.0.0.1', resolve));
    const port = (hang.address() as net.AddressInfo).port;
    const lib = path.join(root, 'interrupted');
    const id = await copyExampleLibrary(lib);
    try {
      const child = spawn(
        process.execPath,
        [
          path.join(REPO_ROOT, 'bin', 'cua-annotator.mjs'),
          'upload',
          id,
          '--to',
          's3://hang/team',
          '--endpoint',
          `http://127.0.0.1:${port}`,
          '--path-style',
          '--annotator',
          'alice',
          '--library',
          lib,
        ],
        { env: { ...process.env, ...swift.env }, stdio: ['ignore', 'pipe', 'pipe'] },
      );
      let stderr = '';
      child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
      const exited = new Promise<{ code: number | null; signal: string | null }>((resolve) =>
        child.on('close', (code, signal) => resolve({ code, signal })),
      );
      // the upload has built its bundle (ffprobe ran: execa and its signal handling are loaded)
      // and is talking to the server
      const deadline = Date.now() + 60_000;
      while (sockets.length === 0 && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 50));
      }
      expect(sockets.length, stderr).toBeGreaterThan(0);
      child.kill('SIGINT');
      const end = await exited;
      expect(end, stderr).toEqual({ code: 2, signal: null });
      expect(stderr).toContain('interrupted: pausing');
      const rows = JSON.parse((await cli(['uploads', '--json', '--library', lib])).stdout);
      expect(rows.map((r: { status: string }) => r.status)).toEqual(['paused']);
    } finally {
      for (const socket of sockets) {
        socket.destroy();
      }
      hang.close();
    }
  });
});
