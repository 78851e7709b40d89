import { describe, expect, it } from 'vitest';
import {
  SUBMISSION_SCHEMA,
  manifestText,
  parseManifest,
  type SubmissionManifest,
} from '../../../src/services/upload/manifest';
import { isAppError } from '../../../src/shared/errors';

const SHA = 'a'.repeat(64);
const VALID: SubmissionManifest = {
  schema: SUBMISSION_SCHEMA,
  schemaVersion: 1,
  recordingId: '6f1c2a9e-0000-4000-8000-000000000001',
  episodeId: 'ep',
  task: 'Open Settings',
  platform: {
    os: 'linux',
    system: 'Linux',
    release: '6',
    version: '',
    machine: 'x86_64',
    model: null,
  },
  toolVersion: '0.1.0',
  librarySchemaVersion: 3,
  annotator: 'alice',
  createdAt: '2026-01-01T00:00:00.000Z',
  submittedAt: '2026-01-02T00:00:00.000Z',
  stepCount: 2,
  files: [
    {
      path: 'video/a b.mp4',
      sizeBytes: 10,
      sha256: SHA,
      role: 'video',
      libraryPath: 'raw/a b.mp4',
    },
    { path: 'raw/events.jsonl', sizeBytes: 0, sha256: SHA, role: 'table', table: 'events' },
  ],
  totals: { files: 2, bytes: 10 },
};

function problem(m: unknown): string | null {
  try {
    parseManifest(JSON.stringify(m), 'x/manifest.json');
    return null;
  } catch (e) {
    return isAppError(e, 'PULL_INVALID') ? e.message : `unexpected ${String(e)}`;
  }
}

describe('submission manifest', () => {
  it('round-trips a valid manifest', () => {
    expect(parseManifest(manifestText(VALID), 'm')).toEqual(VALID);
  });

  it.each([
    ['../escape', /unsafe path/],
    ['/etc/passwd', /unsafe path/],
    ['a//b', /unsafe path/],
    ['a\\b', /unsafe path/],
    ['manifest.json', /unsafe path/],
  ])('refuses the file path %s', (p, message) => {
    const files = [{ ...VALID.files[0]!, path: p }];
    expect(problem({ ...VALID, files })).toMatch(message);
  });

  it('refuses other schemas, newer versions, bad ids, checksums and library paths', () => {
    expect(problem({ ...VALID, schema: 'x' })).toMatch(/"schema"/);
    expect(problem({ ...VALID, schemaVersion: 2 })).toMatch(/newer.*upgrade/);
    expect(problem({ ...VALID, recordingId: '../r' })).toMatch(/recordingId/);
    expect(problem({ ...VALID, files: [{ ...VALID.files[0]!, sha256: 'XYZ' }] })).toMatch(/sha256/);
    expect(problem({ ...VALID, files: [{ ...VALID.files[0]!, libraryPath: '../../x' }] })).toMatch(
      /libraryPath/,
    );
    expect(problem({ ...VALID, files: [VALID.files[1]!, VALID.files[1]!] })).toMatch(/duplicate/);
    expect(problem({ ...VALID, files: [{ ...VALID.files[1]!, table: 'x; DROP' }] })).toMatch(
      /table/,
    );
    expect(problem('not json at all')).toMatch(/not a JSON object/);
  });

  it('keeps a file’s MD5 (team submissions: the presigned Content-MD5) and refuses a malformed one', () => {
    const md5 = '0123456789abcdef0123456789abcdef';
    const withMd5 = { ...VALID, files: [{ ...VALID.files[0]!, md5 }, VALID.files[1]!] };
    expect(parseManifest(manifestText(withMd5), 'm')).toEqual(withMd5);
    for (const bad of [md5.toUpperCase(), md5.slice(1), 42]) {
      expect(problem({ ...VALID, files: [{ ...VALID.files[0]!, md5: bad }] })).toMatch(/"md5"/);
    }
  });
});
