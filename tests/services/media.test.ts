// resolveMedia: only plain file names, only known recordings, only files inside the recording.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { isPlainFileName, resolveMedia } from '../../src/services/media';
import { insertVideo } from '../../src/store';
import { tempLibrary } from '../helpers/library';
import { makeRecording } from '../helpers/store';

const t = tempLibrary();
afterAll(() => t.cleanup());

const { id, seq } = makeRecording(t.lib.db);
const other = makeRecording(t.lib.db);
const folder = path.join(t.dir, 'recordings', id);
fs.mkdirSync(path.join(folder, 'keyframes'), { recursive: true });
fs.mkdirSync(path.join(t.dir, 'recordings', other.id, 'keyframes'), { recursive: true });
for (const [rel, content] of [
  ['video 1.mp4', 'v1'],
  ['part2.mp4', 'v2'],
  ['keyframes/frame-000001.png', 'png'],
  ['secret.txt', 'not media'],
] as const) {
  fs.writeFileSync(path.join(folder, rel), content);
}
fs.writeFileSync(path.join(t.dir, 'recordings', other.id, 'keyframes', 'theirs.png'), 'other');
fs.writeFileSync(path.join(t.dir, 'library-secret.txt'), 'outside');
fs.symlinkSync(path.join(t.dir, 'library-secret.txt'), path.join(folder, 'keyframes', 'link.png'));
fs.mkdirSync(path.join(folder, 'keyframes', 'dir.png'));
const video = {
  width: 1,
  height: 1,
  fps: 30,
  frameCount: 1,
  durationMs: 1,
  startMs: 0,
  startMethod: 'test',
  codec: null,
  sizeBytes: 2,
  sha256: null,
};
insertVideo(t.lib.db, seq, 0, { ...video, path: `recordings/${id}/video 1.mp4` });
insertVideo(t.lib.db, seq, 1, { ...video, path: `recordings/${id}/part2.mp4` });
// a row pointing outside its recording (a corrupt or hostile database) is refused too
insertVideo(t.lib.db, other.seq, 0, { ...video, path: 'library-secret.txt' });

describe('resolveMedia', () => {
  it('resolves the video (first by default, others by file name) and keyframes', () => {
    expect(resolveMedia(t.lib, id, 'video')).toBe(
      fs.realpathSync(path.join(folder, 'video 1.mp4')),
    );
    expect(resolveMedia(t.lib, id, 'video', 'part2.mp4')).toBe(
      fs.realpathSync(path.join(folder, 'part2.mp4')),
    );
    expect(resolveMedia(t.lib, id, 'keyframe', 'frame-000001.png')).toBe(
      fs.realpathSync(path.join(folder, 'keyframes', 'frame-000001.png')),
    );
  });

  it('refuses traversal and odd names', () => {
    for (const name of [
      '../secret.txt',
      '..',
      '.',
      '',
      'keyframes/../secret.txt',
      '..\\secret.txt',
      'frame.png\0',
      '/etc/passwd',
      `../../${other.id}/keyframes/theirs.png`,
      'a'.repeat(300),
    ]) {
      expect(resolveMedia(t.lib, id, 'keyframe', name), JSON.stringify(name)).toBeNull();
      expect(resolveMedia(t.lib, id, 'video', name), JSON.stringify(name)).toBeNull();
    }
  });

  it('refuses unknown, partial and path-like recording ids', () => {
    for (const rid of ['nope', id.slice(0, 8), `../recordings/${id}`, `${id}/..`, '', '..']) {
      expect(resolveMedia(t.lib, rid, 'video'), rid).toBeNull();
    }
    // another recording's keyframe is not reachable through this id
    expect(resolveMedia(t.lib, id, 'keyframe', 'theirs.png')).toBeNull();
  });

  it('refuses files that are not there, not files, symlinks out, and rows pointing outside', () => {
    expect(resolveMedia(t.lib, id, 'keyframe', 'frame-000002.png')).toBeNull();
    expect(resolveMedia(t.lib, id, 'keyframe', 'dir.png')).toBeNull();
    expect(resolveMedia(t.lib, id, 'keyframe', 'link.png')).toBeNull();
    expect(resolveMedia(t.lib, id, 'keyframe')).toBeNull();
    expect(resolveMedia(t.lib, id, 'video', 'secret.txt')).toBeNull();
    expect(resolveMedia(t.lib, other.id, 'video')).toBeNull();
  });

  it('isPlainFileName accepts names with spaces and refuses separators and dots', () => {
    expect(['2024-11-05 18-56-31.mp4', 'frame-000001.png', '.hidden'].map(isPlainFileName)).toEqual(
      [true, true, true],
    );
    expect(['a/b', 'a\\b', '..', '.', '', 'a\nb'].map(isPlainFileName)).toEqual([
      false,
      false,
      false,
      false,
      false,
      false,
    ]);
  });
});
