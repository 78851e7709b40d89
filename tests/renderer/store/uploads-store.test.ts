import '../helpers/setup';
import { describe, expect, it } from 'vitest';
import type { UploadProgressDto, UploadViewDto } from '../../../src/shared/contract';
import {
  applyUploadProgress,
  mergeUploadViews,
  uploadsSelectors,
  useUploadsStore,
} from '../../../src/renderer/store/uploads';
import { FakeFailure, installFakeApi } from '../helpers/fake-api';

const state = () => useUploadsStore.getState();

function view(uploadId: number, patch: Partial<UploadViewDto> = {}): UploadViewDto {
  return {
    uploadId,
    recordingId: `rec-${uploadId}`,
    task: `Task ${uploadId}`,
    target: 's3://bucket/pre',
    endpoint: null,
    annotator: 'ann',
    location: `s3://bucket/pre/ann/rec-${uploadId}/`,
    status: 'queued',
    bytesDone: 0,
    bytesTotal: 0,
    objectsVerified: 0,
    objectsTotal: 0,
    error: null,
    partRequests: 0,
    retries: 0,
    createdAtMs: 1,
    updatedAtMs: 1,
    submittedAtMs: null,
    ...patch,
  };
}

function progress(uploadId: number, patch: Partial<UploadProgressDto> = {}): UploadProgressDto {
  return {
    uploadId,
    recordingId: `rec-${uploadId}`,
    phase: 'uploading',
    bytesDone: 25,
    bytesTotal: 100,
    objectsDone: 1,
    objectsTotal: 4,
    detail: 'part 1/4 video/x.mp4',
    ...patch,
  };
}

describe('uploads store pure parts', () => {
  it('merges fresh views over listed ones and puts new ones first', () => {
    const merged = mergeUploadViews([view(2), view(1)], [view(1, { status: 'failed' }), view(3)]);
    expect(merged.map((u) => [u.uploadId, u.status])).toEqual([
      [3, 'queued'],
      [2, 'queued'],
      [1, 'failed'],
    ]);
  });

  it('applies progress to the row and the live map; manifest counts as verifying', () => {
    let s = applyUploadProgress({ uploads: [view(1), view(2)], progress: {} }, progress(1));
    expect(s.uploads[0]).toMatchObject({ status: 'uploading', bytesDone: 25, bytesTotal: 100 });
    expect(s.uploads[1]?.status).toBe('queued');
    s = applyUploadProgress(s, progress(1, { phase: 'manifest', bytesDone: 100 }));
    expect(s.uploads[0]?.status).toBe('verifying');
    expect(s.progress[1]?.bytesDone).toBe(100);
  });

  it('derives fraction, detail and which buttons are enabled', () => {
    const base = state();
    const running = view(1, { status: 'uploading', bytesDone: 10, bytesTotal: 100 });
    const s = { ...base, uploads: [running], progress: { 1: progress(1) } };
    expect(uploadsSelectors.fraction(s, running)).toBe(0.25);
    expect(uploadsSelectors.detail(s, running)).toBe('part 1/4 video/x.mp4');
    expect(uploadsSelectors.canRetry(s, running)).toBe(false);
    expect(uploadsSelectors.canCancel(s, running)).toBe(true);
    const failed = view(2, { status: 'failed', error: 'boom', bytesDone: 5, bytesTotal: 0 });
    expect(uploadsSelectors.fraction(base, failed)).toBeNull();
    expect(uploadsSelectors.canRetry(base, failed)).toBe(true);
    const done = view(3, { status: 'uploaded', bytesDone: 100, bytesTotal: 100 });
    expect(uploadsSelectors.fraction(base, done)).toBe(1);
    expect(uploadsSelectors.canCancel(base, done)).toBe(false);
    expect(uploadsSelectors.canRetry(base, done)).toBe(false);
  });
});

describe('useUploadsStore', () => {
  it('prefills the dialog from the saved target and starts uploads', async () => {
    const api = installFakeApi();
    api.on('uploads:defaults', () => ({ to: 's3://bucket/pre', endpoint: null, annotator: 'ann' }));
    api.on('uploads:enqueue', () => [view(7)]);
    await state().openDialog(['rec-7']);
    expect(state().dialog).toMatchObject({ open: true, to: 's3://bucket/pre', annotator: 'ann' });
    expect(uploadsSelectors.canStart(state())).toBe(true);
    await state().start();
    expect(api.calls[1]).toEqual({
      method: 'uploads:enqueue',
      payload: { ids: ['rec-7'], to: 's3://bucket/pre', annotator: 'ann' },
    });
    expect(state().dialog.status).toBe('started');
    expect(state().uploads.map((u) => u.uploadId)).toEqual([7]);
  });

  it('needs a target when none is saved and shows a refused upload', async () => {
    const api = installFakeApi();
    api.on('uploads:defaults', () => ({ to: null, endpoint: null, annotator: null }));
    api.on('uploads:enqueue', () => {
      throw new FakeFailure('UPLOAD_AUTH', 'No usable credentials');
    });
    await state().openDialog(['rec-1']);
    expect(uploadsSelectors.canStart(state())).toBe(false);
    state().setTarget('s3://bucket/x');
    state().setAnnotator('me');
    expect(uploadsSelectors.canStart(state())).toBe(true);
    await state().start();
    expect(state().dialog.status).toBe('error');
    expect(state().dialog.error).toBe('No usable credentials');
  });

  it('lists, follows progress, retries and cancels', async () => {
    const api = installFakeApi();
    api.on('uploads:list', () => [view(1, { status: 'failed', error: 'boom' })]);
    api.on('uploads:retry', () => view(1, { status: 'queued' }));
    api.on('uploads:cancel', () => view(1, { status: 'cancelled' }));
    await state().load();
    expect(state().uploads[0]?.error).toBe('boom');
    await state().retry(1);
    expect(state().uploads[0]?.status).toBe('queued');
    state().onProgress(progress(1, { bytesDone: 50 }));
    expect(uploadsSelectors.fraction(state(), state().uploads[0]!)).toBe(0.5);
    await state().cancel(1);
    expect(state().uploads[0]?.status).toBe('cancelled');
    expect(api.methods()).toEqual(['uploads:list', 'uploads:retry', 'uploads:cancel']);
  });
});

describe('issue 10 item 24: the Uploads page says each thing once', () => {
  it('item 24: a failed upload shows its error once and no "0.0 KiB of 0.0 KiB"', () => {
    const error = 'UPLOAD_AUTH: the bucket refused the credentials';
    const failed = view(1, { status: 'failed', error });
    useUploadsStore.setState({
      uploads: [failed],
      progress: { 1: progress(1, { phase: 'failed', bytesDone: 0, bytesTotal: 0, detail: error }) },
    });
    // the row shows `error` itself; the progress line must not repeat it or show unknown sizes
    expect(uploadsSelectors.progressText(state(), failed)).toBe('');
    const queued = view(2);
    expect(uploadsSelectors.progressText(state(), queued)).toBe('');
    const running = view(3, { status: 'uploading' });
    useUploadsStore.setState({
      uploads: [running],
      progress: { 3: progress(3, { bytesDone: 2048, bytesTotal: 3 * 1024 * 1024 }) },
    });
    expect(uploadsSelectors.progressText(state(), running)).toBe(
      '2.0 KiB of 3.0 MiB · part 1/4 video/x.mp4',
    );
  });
});
