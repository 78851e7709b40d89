// Crash recovery of `excluded` marks: a recorder that died while an excluded window was in front
// left its mark without an end; recovery ends it at the next window that is not excluded, else
// at the end of what was recorded (the video's last frame or the last event). Real SQLite.
import { afterEach, describe, expect, it } from 'vitest';
import { endOpenExclusionMarks } from '../../../src/services/recording/exclusion-marks';
import { LibrarySink } from '../../../src/services/recording/library-sink';
import { insertVideo, listMarks } from '../../../src/store';
import { tempLibrary } from '../../helpers/library';
import { makeRecording } from '../../helpers/store';

const libs: ReturnType<typeof tempLibrary>[] = [];
afterEach(() => libs.splice(0).forEach((t) => t.cleanup()));

const win = (tMs: number, title: string) => ({
  tMs,
  change: 'activated' as const,
  windowId: '0x1',
  title,
  app: null,
  appInstance: null,
  pid: null,
  bounds: null,
});

describe('endOpenExclusionMarks', () => {
  it('ends open excluded marks at the next kept window, else at the end of the recording', () => {
    const t = tempLibrary();
    libs.push(t);
    const { seq } = makeRecording(t.lib.db, { videoStartMs: 1000 });
    const sink = new LibrarySink(t.lib, seq, 'recordings/x');
    sink.window(win(1000, 'Editor'));
    sink.window(win(2000, 'excluded'));
    sink.mark({ tMs: 2000, endMs: null, kind: 'excluded', data: { rule: 'app:Vault' } });
    sink.window(win(2500, 'excluded')); // another excluded window: the interval goes on
    sink.window(win(3000, 'Editor'));
    sink.window(win(4000, 'excluded'));
    sink.mark({ tMs: 4000, endMs: null, kind: 'excluded', data: { rule: 'title:/x/' } });
    sink.mark({ tMs: 100, endMs: 200, kind: 'excluded', data: {} }); // ended by the session
    sink.mark({ tMs: 4100, endMs: null, kind: 'note', data: {} }); // not an exclusion
    insertVideo(t.lib.db, seq, 0, {
      path: 'recordings/x/video-0.mp4',
      width: 320,
      height: 240,
      fps: 10,
      frameCount: 50,
      durationMs: 5000,
      startMs: 1000,
      startMethod: 'test',
      codec: 'h264',
      sizeBytes: 1,
      sha256: null,
    });
    expect(endOpenExclusionMarks(t.lib, seq)).toBe(2);
    const marks = listMarks(t.lib.db, seq).map((m) => [m.kind, m.tMs, m.endMs]);
    expect(marks).toEqual([
      ['excluded', 100, 200],
      ['excluded', 2000, 3000],
      ['excluded', 4000, 6000],
      ['note', 4100, null],
    ]);
    expect(endOpenExclusionMarks(t.lib, seq)).toBe(0);
  });

  it('the session sink sets the end of the mark it opened', () => {
    const t = tempLibrary();
    libs.push(t);
    const { seq } = makeRecording(t.lib.db);
    const sink = new LibrarySink(t.lib, seq, 'recordings/x');
    sink.mark({ tMs: 10, endMs: null, kind: 'excluded', data: { rule: 'app:Vault' } });
    sink.endMark('excluded', 10, 25);
    expect(listMarks(t.lib.db, seq)).toEqual([
      { tMs: 10, endMs: 25, kind: 'excluded', data: { rule: 'app:Vault' } },
    ]);
    expect(sink.errors).toEqual([]);
  });
});
