// A submission bundle for hub tests: the given files and a manifest naming each one's size and
// SHA-256, as `submit` sends them (src/services/upload/manifest.ts).
import { createHash } from 'node:crypto';
import {
  manifestText,
  SUBMISSION_SCHEMA,
  type SubmissionManifest,
} from '../../src/services/upload/manifest';

/** What {@link testBundle} builds a bundle of. */
export type TestBundleInput = {
  recordingId: string;
  /** The annotator's account name (the manifest's `annotator`). */
  annotator: string;
  /** Default `task of <recordingId>`. */
  task?: string;
  /** Path → bytes; `.mp4` files are the video, the others steps. */
  files: Record<string, Buffer>;
};

/** The bundle's files (`manifest.json` included) and the manifest's text. */
export function testBundle(input: TestBundleInput): {
  files: Record<string, Buffer>;
  text: string;
} {
  const entries = Object.entries(input.files);
  const manifest: SubmissionManifest = {
    schema: SUBMISSION_SCHEMA,
    schemaVersion: 1,
    recordingId: input.recordingId,
    episodeId: `ep-${input.recordingId}`,
    task: input.task ?? `task of ${input.recordingId}`,
    platform: { os: 'linux' } as SubmissionManifest['platform'],
    toolVersion: '0.0.0-test',
    librarySchemaVersion: 1,
    annotator: input.annotator,
    createdAt: '2026-01-01T00:00:00.000Z',
    submittedAt: '2026-01-01T00:01:00.000Z',
    stepCount: 1,
    files: entries.map(([p, b]) => ({
      path: p,
      sizeBytes: b.length,
      sha256: createHash('sha256').update(b).digest('hex'),
      role: p.endsWith('.mp4') ? 'video' : 'steps',
    })),
    totals: { files: entries.length, bytes: entries.reduce((n, [, b]) => n + b.length, 0) },
  };
  const text = manifestText(manifest);
  return { files: { ...input.files, 'manifest.json': Buffer.from(text) }, text };
}
