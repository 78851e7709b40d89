// The PII policy from the command line (real CLI processes, the example recording with a card
// number in its task text, Swift for upload): export and upload refuse with PII_UNRESOLVED and
// the fix, leave nothing behind, go through with --allow-pii (recorded), and `scan --accept`
// resolves the finding (shown as resolved by `scan`), after which export needs no flag.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { S3Client } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openLibrary } from '../../src/services/library/library';
import { updateRecordingTask } from '../../src/services/review-service';
import { listReviews, resolveRecordingSeq } from '../../src/store';
import { runCli } from '../helpers/cli';
import { copyExampleLibrary } from '../helpers/example-library';
import { startSwift, type Swift } from '../helpers/swift';
import { createBucket, listObjects, objectText, rawClient } from '../services/upload/helpers';

const CARD = '4198 3444 1747 6617';
const BUCKET = 'cli-pii';
const root = fs.mkdtempSync(path.join(os.tmpdir(), 'cua-cli-pii-'));
const lib = path.join(root, 'lib');
let swift: Swift;
let client: S3Client;
let id = '';

type Finding = { id: string; kind: string; resolved: string | null };

beforeAll(async () => {
  [swift] = await Promise.all([
    startSwift(),
    (async () => {
      id = await copyExampleLibrary(lib);
      const l = openLibrary(lib);
      try {
        updateRecordingTask(l, id, { task: `Pay with card ${CARD}` });
      } finally {
        l.close();
      }
    })(),
  ]);
  client = rawClient(swift);
  await createBucket(client, BUCKET);
}, 90_000);

afterAll(async () => {
  client?.destroy();
  await swift?.stop();
  fs.rmSync(root, { recursive: true, force: true });
});

const cli = (args: string[]) => runCli([...args, '--library', lib], swift.env);
const findings = async (): Promise<Finding[]> => {
  const r = await cli(['scan', id, '--json']);
  expect(r.code, r.stderr).toBe(0);
  return (JSON.parse(r.stdout) as { findings: Finding[] }).findings;
};
const reviewComments = () => {
  const l = openLibrary(lib);
  try {
    return listReviews(l.db, resolveRecordingSeq(l.db, id).seq).map((r) => r.comment ?? '');
  } finally {
    l.close();
  }
};
const upload = (prefix: string, extra: string[] = []) =>
  cli([
    'upload',
    id,
    '--to',
    `s3://${BUCKET}/${prefix}`,
    '--path-style',
    '--annotator',
    'bo',
    ...extra,
  ]);

describe('export / upload / scan --accept with an unresolved card', { timeout: 120_000 }, () => {
  it('export and upload refuse with PII_UNRESOLVED and the fix; nothing is written or sent', async () => {
    const out = path.join(root, 'refused');
    const [exp, up] = await Promise.all([
      cli(['export', id, '--format', 'agentnet-raw', '--out', out]),
      upload('refused'),
    ]);
    for (const r of [exp, up]) {
      expect(r.code).not.toBe(0);
      expect(r.stderr).toContain('PII_UNRESOLVED');
      expect(r.stderr).toContain('1 card (task)');
      expect(r.stderr).toContain(`cua-annotator scan ${id} --accept`);
      expect(r.stderr).toContain('--allow-pii');
    }
    expect(fs.existsSync(out)).toBe(false);
    expect((await listObjects(client, BUCKET, '')).size).toBe(0);
    const [card] = await findings();
    expect(card).toMatchObject({ kind: 'card', resolved: null });
  });

  it('--allow-pii exports and uploads; metadata, manifest and review history record it', async () => {
    const out = path.join(root, 'allowed');
    const exp = await cli(['export', id, '--format', 'agentnet-raw', '--out', out, '--allow-pii']);
    expect(exp.code, exp.stderr).toBe(0);
    expect(exp.stdout).toMatch(/warning: .*PII allowed/);
    const [episode] = fs.readdirSync(out);
    const meta = JSON.parse(fs.readFileSync(path.join(out, episode!, 'metadata.json'), 'utf8'));
    const [card] = await findings();
    expect(meta.x_recorder.pii.allowed.findings[0].id).toBe(card!.id);

    const up = await upload('allowed', ['--allow-pii']);
    expect(up.code, up.stderr).toBe(0);
    const manifest = JSON.parse(await objectText(client, BUCKET, `allowed/bo/${id}/manifest.json`));
    expect(manifest.pii.allowed).toMatchObject({ allowedBy: 'bo', findings: [{ id: card!.id }] });
    const comments = reviewComments();
    expect(comments.filter((c) => c.startsWith('pii-allowed (export'))).toHaveLength(1);
    expect(comments.filter((c) => c.startsWith('pii-allowed (upload'))).toHaveLength(1);
  });

  it('scan --accept resolves the finding (unknown ids refused); export then needs no flag', async () => {
    const [card] = await findings();
    const unknown = await cli(['scan', id, '--accept', 'nope']);
    expect(unknown.code).not.toBe(0);
    expect(unknown.stderr).toContain('NOT_FOUND');
    const accept = await cli(['scan', id, '--accept', card!.id, '--note', 'a test card', '--json']);
    expect(accept.code, accept.stderr).toBe(0);
    expect(JSON.parse(accept.stdout)).toEqual({
      accepted: { id: card!.id, kind: 'card', resolved: 'accepted' },
    });
    expect((await findings())[0]).toMatchObject({ id: card!.id, resolved: 'accepted' });
    const table = await cli(['scan', id]);
    expect(table.stdout).toMatch(/task\s+accepted\s+"/);
    const out = path.join(root, 'accepted');
    const exp = await cli(['export', id, '--format', 'agentnet-raw', '--out', out]);
    expect(exp.code, exp.stderr).toBe(0);
    expect(fs.readdirSync(out)).toHaveLength(1);
  });
});
