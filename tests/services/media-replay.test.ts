// Replay screenshots as media (docs/replay.md §6): `<id>/replay/<run id>/<file>.png` resolves to
// a file under the recording's `replay/` folder and nowhere else; the URL builders of both hosts
// make one segment of each part, and the parse refuses `..`, separators and other shapes.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { mediaUrl, parseMediaUrl } from '../../src/main/media-protocol';
import { mediaPath, parseMediaPath } from '../../src/server/media';
import { resolveMedia } from '../../src/services/media';
import { tempLibrary } from '../helpers/library';
import { makeRecording } from '../helpers/store';

const t = tempLibrary();
afterAll(() => t.cleanup());

const { id } = makeRecording(t.lib.db);
const other = makeRecording(t.lib.db);
const folder = path.join(t.dir, 'recordings', id);
const run = '2026-12-02T10-00-00-000Z-abc123';
fs.mkdirSync(path.join(folder, 'replay', run), { recursive: true });
fs.mkdirSync(path.join(folder, 'keyframes'), { recursive: true });
fs.writeFileSync(path.join(folder, 'replay', run, 'step-003.png'), 'png');
fs.writeFileSync(path.join(folder, 'replay', run, 'report.json'), '{}');
fs.writeFileSync(path.join(folder, 'replay', 'top.png'), 'png');
fs.writeFileSync(path.join(folder, 'keyframes', 'k.png'), 'png');
fs.writeFileSync(path.join(folder, 'secret.png'), 'not a replay file');
fs.mkdirSync(path.join(t.dir, 'recordings', other.id, 'replay', run), { recursive: true });
fs.writeFileSync(path.join(t.dir, 'recordings', other.id, 'replay', run, 'theirs.png'), 'x');
fs.symlinkSync(path.join(folder, 'secret.png'), path.join(folder, 'replay', run, 'link.png'));

describe('replay media', () => {
  it('resolves a screenshot of a run inside the recording', () => {
    expect(resolveMedia(t.lib, id, 'replay', `${run}/step-003.png`)).toBe(
      fs.realpathSync(path.join(folder, 'replay', run, 'step-003.png')),
    );
  });

  it('refuses ../, other shapes, non-PNG files, other recordings and links out of replay/', () => {
    for (const name of [
      `../${run}/step-003.png`,
      `${run}/../secret.png`,
      `../secret.png`,
      '../../secret.png',
      `${run}/../../secret.png`,
      `..\\${run}\\step-003.png`,
      `${run}/step-003.png/`,
      `${run}/report.json`,
      `${run}/link.png`,
      'top.png',
      `/${run}/step-003.png`,
      `${run}//step-003.png`,
      `a/${run}/step-003.png`,
      `../../${other.id}/replay/${run}/theirs.png`,
      `${run}/step-003.png\0`,
    ]) {
      expect(resolveMedia(t.lib, id, 'replay', name), JSON.stringify(name)).toBeNull();
    }
    expect(resolveMedia(t.lib, id, 'replay')).toBeNull();
    // a keyframe is not reachable as a replay file, nor a replay file as a keyframe
    expect(resolveMedia(t.lib, id, 'replay', 'keyframes/k.png')).toBeNull();
    expect(resolveMedia(t.lib, id, 'keyframe', `${run}/step-003.png`)).toBeNull();
  });

  it('both hosts build URLs whose parse gives the same request back', () => {
    const name = `${run}/step-003.png`;
    expect(mediaPath(id, 'replay', name)).toBe(`/media/${id}/replay/${run}/step-003.png`);
    expect(parseMediaPath(mediaPath(id, 'replay', name))).toEqual({
      recordingId: id,
      kind: 'replay',
      name,
    });
    expect(parseMediaUrl(mediaUrl(id, 'replay', name))).toEqual({
      recordingId: id,
      kind: 'replay',
      name,
    });
    // keyframe URLs are unchanged
    expect(mediaPath(id, 'keyframe', 'a b.png')).toBe(`/media/${id}/keyframe/a%20b.png`);
  });

  it('the parse refuses dangerous and odd replay paths', () => {
    for (const [p, want] of [
      [`/media/${id}/replay/..%2f${run}/step-003.png`, 'bad'],
      [`/media/${id}/replay/../step-003.png`, 'bad'],
      [`/media/${id}/replay/${run}/..`, 'bad'],
      [`/media/${id}/replay/${run}/%2e%2e%2fsecret.png`, 'bad'],
      [`/media/${id}/replay/${run}%2fstep-003.png`, 'bad'],
      [`/media/${id}/replay/${run}`, 'missing'],
      [`/media/${id}/replay/${run}/report.json`, 'missing'],
      [`/media/${id}/replay/${run}/x/step-003.png`, 'missing'],
      [`/media/${id}/replay`, 'missing'],
    ] as const) {
      expect(parseMediaPath(p), p).toBe(want);
    }
  });
});
