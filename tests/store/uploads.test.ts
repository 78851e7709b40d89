// Upload object counts come from SQL, not from loading every object row.
import { describe, expect, it } from 'vitest';
import {
  countUploadObjects,
  insertUpload,
  insertUploadObject,
  listUploadObjects,
  updateUploadObject,
} from '../../src/store/queries/uploads';
import { createTestDb, makeRecording } from '../helpers/store';

describe('countUploadObjects', () => {
  it('counts all and verified objects of one upload only', () => {
    const db = createTestDb();
    const { seq } = makeRecording(db);
    const newUpload = () =>
      insertUpload(db, { recordingSeq: seq, target: 't', status: 'queued', state: {}, nowMs: 1 });
    const upload = newUpload();
    const other = newUpload();
    expect(countUploadObjects(db, upload)).toEqual({ total: 0, verified: 0 });
    const object = (relKey: string) => ({
      relKey,
      role: 'file',
      path: relKey,
      sizeBytes: 1,
      mtimeMs: 1,
      sha256: '',
      partSizeBytes: 8,
      multipartUploadId: null,
      status: 'pending' as const,
      etag: null,
    });
    for (const key of ['a', 'b', 'c']) {
      insertUploadObject(db, upload, object(key));
    }
    insertUploadObject(db, other, object('a'));
    updateUploadObject(db, upload, 'b', { status: 'verified' });
    updateUploadObject(db, other, 'a', { status: 'verified' });
    expect(countUploadObjects(db, upload)).toEqual({ total: 3, verified: 1 });
    expect(countUploadObjects(db, other)).toEqual({ total: 1, verified: 1 });
    const listed = listUploadObjects(db, upload);
    expect(listed.filter((o) => o.status === 'verified')).toHaveLength(1);
  });
});
