// The `keyframes` job (issue 29 item 3, docs/jobs.md §H): a version whose bundle lacks keyframes
// or carries stale ones (submitted with --no-keyframes, or edited after they were computed) gets
// them computed on the hub — restored into a scratch library, the app's own keyframe
// computation run on its video — and the images written to the store beside the version's
// objects (`<prefix>/derived/keyframes/<file>`), listed with their size and SHA-256 on the
// version's row (`submission_versions.keyframes`). The bundle's manifest.json is not rewritten:
// its SHA-256 is the version's identity. Idempotent (key `keyframes:<id>@<version>`).
import { createHash } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { AppError } from '../../../shared/errors';
import { KEYFRAMES_DIR, refreshStaleKeyframes } from '../../../services/keyframes/keyframes';
import { RECORDINGS_DIR } from '../../../services/library/library';
import { checkRecordingInLibrary } from '../../../services/quality/check-service';
import { findJobVersion, recordVersionKeyframes } from '../../db';
import { JobHandedBack, type JobHandler } from '../types';
import { withBundleLibrary } from './bundle-library';
import type { HandlerDeps } from './index';
import { parsePayload, SubmissionVersionPayloadSchema, type KeyframesPayload } from './payloads';

/** What the keyframes job did (also stored on the version when it computed any). */
export type KeyframesResult = {
  submissionId: number;
  version: number;
  /** `fresh`: the bundle's keyframes were current; `computed`: written to the store. */
  outcome: 'fresh' | 'computed';
  steps: number;
  files: { path: string; sizeBytes: number; sha256: string }[];
  diagnostics: string[];
};

/** Where a version's hub-computed keyframes live, below its object prefix. */
export const DERIVED_KEYFRAMES_DIR = `derived/${KEYFRAMES_DIR}`;

/** Builds the `keyframes` handler. */
export function createKeyframesHandler(
  deps: HandlerDeps,
): JobHandler<KeyframesPayload, KeyframesResult> {
  return async (payload, ctx) => {
    const p = parsePayload('keyframes', SubmissionVersionPayloadSchema, payload);
    const version = await findJobVersion(deps.db, p.submissionId, p.version);
    if (!version) {
      throw new AppError(
        'NOT_FOUND',
        `no version ${p.version} of submission ${p.submissionId}`,
        { ...p },
        'Nothing to compute: the submission may be from another hub.',
      );
    }
    if (version.keyframes) {
      return version.keyframes as KeyframesResult;
    }
    const result = await withBundleLibrary(
      deps.store,
      version.objectPrefix,
      async (b) => {
        const stale = checkRecordingInLibrary(b.lib, b.recordingId).problems.some(
          (x) => x.code === 'KEYFRAME_MISSING',
        );
        if (!stale) {
          return { outcome: 'fresh' as const, steps: 0, files: [], diagnostics: [] };
        }
        await ctx.progress(0, 2, 'decoding keyframes');
        const computed = await refreshStaleKeyframes(b.lib, b.recordingId, {
          signal: ctx.signal,
        });
        if (ctx.signal.aborted) {
          throw new JobHandedBack(ctx.key);
        }
        await ctx.progress(1, 2, 'storing keyframes');
        const folder = b.lib.resolve(`${RECORDINGS_DIR}/${b.recordingId}/${KEYFRAMES_DIR}`);
        const names = (await fs.readdir(folder).catch(() => [] as string[])).sort();
        const files: KeyframesResult['files'] = [];
        for (const name of names) {
          const body = await fs.readFile(path.join(folder, name));
          const key = `${version.objectPrefix}/${DERIVED_KEYFRAMES_DIR}/${name}`;
          await deps.store.put(key, body, { sizeBytes: body.length });
          files.push({
            path: `${DERIVED_KEYFRAMES_DIR}/${name}`,
            sizeBytes: body.length,
            sha256: createHash('sha256').update(body).digest('hex'),
          });
        }
        return {
          outcome: 'computed' as const,
          steps: computed.steps,
          files,
          diagnostics: computed.diagnostics,
        };
      },
      { signal: ctx.signal },
    );
    const out: KeyframesResult = { submissionId: p.submissionId, version: p.version, ...result };
    if (out.outcome === 'computed') {
      await recordVersionKeyframes(deps.db, { ...p, keyframes: out });
    }
    await ctx.progress(2, 2, out.outcome);
    return out;
  };
}
