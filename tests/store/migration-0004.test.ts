// Migration 4: the recorded display's origin per recording (the coordinate contract), and the
// segment list with each segment's display read back from capture_json.
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import {
  getRecording,
  listVideoSegments,
  migrate,
  schemaVersion,
  setRecordingScreenSize,
  updateRecording,
} from '../../src/store';
import { createTestDb, makeRecording } from '../helpers/store';

describe('migration 4 (display origin)', () => {
  it('gives recordings made before it the origin 0,0 and keeps their screen', () => {
    const db = new Database(':memory:');
    migrate(db, 3);
    db.prepare(
      `INSERT INTO recordings (id, source, task, status, os, platform_json, screen_width,
        screen_height, scale_factor, app_version, dir, created_at_ms, updated_at_ms)
       VALUES ('old', 'recorder', 'task', 'complete', 'linux', '{}', 1280, 800, 2, '0',
        'recordings/old', 0, 0)`,
    ).run();
    migrate(db, 4);
    expect(schemaVersion(db)).toBe(4);
    const rec = getRecording(db, 'old');
    expect(rec.screen).toEqual({
      width: 1280,
      height: 800,
      scale: 2,
      origin: { x: 0, y: 0 },
      monitors: [],
    });
    db.close();
  });

  it('stores a negative origin (a monitor left of and above the primary one)', () => {
    const db = createTestDb();
    const { id } = makeRecording(db, {
      screen: {
        width: 1920,
        height: 1080,
        scale: 1.5,
        origin: { x: -1920, y: -200 },
        monitors: [],
      },
    });
    expect(getRecording(db, id).screen.origin).toEqual({ x: -1920, y: -200 });
    db.close();
  });
});

describe('listVideoSegments', () => {
  it('reads each segment with its display, in start order, and the end finalising set', () => {
    const db = createTestDb();
    const { seq, id } = makeRecording(db, {
      screen: { width: 1280, height: 800, scale: 1, origin: { x: 0, y: 0 }, monitors: [] },
    });
    updateRecording(
      db,
      seq,
      {
        capture: {
          segments: [
            {
              path: 'recordings/r/video-1.mp4',
              videoStartMs: 9000,
              method: 'm',
              uncertaintyMs: 1,
              display: { x: -1024, y: 0, width: 1024, height: 768, scale: 2 },
            },
            {
              path: 'recordings/r/video-0.mp4',
              videoStartMs: 1000,
              method: 'm',
              uncertaintyMs: 1,
              endMs: 8000,
            },
          ],
        },
      },
      1,
    );
    expect(listVideoSegments(db, seq)).toEqual([
      {
        path: 'recordings/r/video-0.mp4',
        startMs: 1000,
        endMs: 8000,
        // stored before displays were: the recording's own
        display: { x: 0, y: 0, width: 1280, height: 800, scale: 1 },
      },
      {
        path: 'recordings/r/video-1.mp4',
        startMs: 9000,
        endMs: null,
        display: { x: -1024, y: 0, width: 1024, height: 768, scale: 2 },
      },
    ]);
    setRecordingScreenSize(db, seq, { width: 1600, height: 900 });
    expect(getRecording(db, id).screen).toMatchObject({ width: 1600, height: 900 });
    db.close();
  });

  it('is empty for a recording without capture facts (an import)', () => {
    const db = createTestDb();
    const { seq } = makeRecording(db);
    expect(listVideoSegments(db, seq)).toEqual([]);
    db.close();
  });
});
