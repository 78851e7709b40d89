// The run's task rule on its own: the first failure stops the other tasks (their signal aborts),
// a real failure is reported over the ABORTED errors it caused, and a forgotten multipart upload
// (NoSuchUpload) does not stop the others (putMultipart restarts its object instead).
import { describe, expect, it } from 'vitest';
import type { Library } from '../../../../src/services/library/library';
import type { ObjectStore } from '../../../../src/services/upload/object-store';
import { abortedError } from '../../../../src/services/upload/retry';
import { isNoSuchUpload, UploadRun } from '../../../../src/services/upload/engine/run-context';
import type { UploadState } from '../../../../src/services/upload/engine/types';
import { AppError, isAppError } from '../../../../src/shared/errors';
import type { UploadRecord } from '../../../../src/store/queries/uploads';

// settleAll and the signal touch neither the library nor the store
function newRun(signal?: AbortSignal): UploadRun {
  const row = { id: 1, recordingId: 'r' } as UploadRecord;
  const state = { keyPrefix: 'p/a/r' } as UploadState;
  return new UploadRun(
    {} as Library,
    row,
    state,
    {} as ObjectStore,
    {
      appVersion: 'test',
      ...(signal ? { signal } : {}),
    },
    () => 0,
  );
}

const noSuchUpload = () => new AppError('UPLOAD_REJECTED', 'gone', { s3Code: 'NoSuchUpload' });

/** A task that waits until the run's signal aborts, then fails with ABORTED. */
const waitForAbort = (run: UploadRun) => () =>
  new Promise<void>((_, reject) => {
    run.signal.addEventListener('abort', () => reject(abortedError()), { once: true });
  });

describe('UploadRun.settleAll', () => {
  it('stops the other tasks at the first failure and reports it, not their ABORTED', async () => {
    const run = newRun();
    const failure = new AppError('UPLOAD_AUTH', 'denied');
    const caught = await run
      .settleAll([
        waitForAbort(run),
        async () => {
          await new Promise((r) => setTimeout(r, 5));
          throw failure;
        },
        waitForAbort(run),
      ])
      .catch((e: unknown) => e);
    expect(caught).toBe(failure);
    expect(run.signal.aborted).toBe(true);
  });

  it('does not stop the others for NoSuchUpload, but still reports it', async () => {
    const run = newRun();
    let finished = 0;
    const caught = await run
      .settleAll([
        () => Promise.reject(noSuchUpload()),
        async () => {
          await new Promise((r) => setTimeout(r, 10));
          finished += 1;
        },
      ])
      .catch((e: unknown) => e);
    expect(isNoSuchUpload(caught)).toBe(true);
    expect(finished).toBe(1);
    expect(run.signal.aborted).toBe(false);
  });

  it('turns an ABORTED nobody asked for into INTERNAL, and keeps it when the caller stopped', async () => {
    const unasked = await newRun()
      .settleAll([() => Promise.reject(abortedError())])
      .catch((e: unknown) => e);
    expect(isAppError(unasked, 'INTERNAL'), String(unasked)).toBe(true);
    const stop = new AbortController();
    const run = newRun(stop.signal);
    stop.abort();
    expect(run.signal.aborted).toBe(true);
    const asked = await run
      .settleAll([() => Promise.reject(abortedError())])
      .catch((e: unknown) => e);
    expect(isAppError(asked, 'ABORTED'), String(asked)).toBe(true);
  });

  it('resolves when every task succeeds', async () => {
    const run = newRun();
    let count = 0;
    await run.settleAll(
      [1, 2, 3].map(() => async () => {
        await new Promise((r) => setTimeout(r, 1));
        count += 1;
      }),
    );
    expect(count).toBe(3);
  });
});
