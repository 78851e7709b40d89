// Migration 2 moves data: recordings.step_count is backfilled, then kept by triggers.
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import type { Step } from '../../src/shared/domain';
import {
  deleteRecordingRow,
  insertRecording,
  migrate,
  replaceSteps,
  schemaVersion,
  type Db,
} from '../../src/store';

function steps(n: number): Step[] {
  return Array.from({ length: n }, (_, i) => ({
    id: `s${i}`,
    index: i,
    kind: 'click' as const,
    description: 'Single left Click',
    label: 'click',
    calls: [],
    startMs: i,
    endMs: i + 1,
    eventStartIdx: null,
    coordinate: null,
    preMove: null,
    target: null,
    extra: {},
    diagnostics: [],
  }));
}

function insertV1Recording(db: Db, id: string): { seq: number } {
  const info = db
    .prepare(
      `INSERT INTO recordings (id, source, task, status, os, platform_json, screen_width,
        screen_height, app_version, dir, created_at_ms, updated_at_ms)
       VALUES (?, 'recorder', 'task', 'complete', 'linux', '{}', 1280, 800, '0', ?, 0, 0)`,
    )
    .run(id, `recordings/${id}`);
  return { seq: Number(info.lastInsertRowid) };
}

function stepCount(db: Db, seq: number): number {
  return (
    db.prepare(`SELECT step_count AS n FROM recordings WHERE seq = ?`).get(seq) as { n: number }
  ).n;
}

describe('migration 2 (keyframes, step_count, page indexes)', () => {
  it('backfills step_count of existing recordings and keeps it with triggers', () => {
    const db = new Database(':memory:');
    db.pragma('foreign_keys = ON');
    migrate(db, 1);
    expect(schemaVersion(db)).toBe(1);
    // rows as version 1 stores them (today's insertRecording writes later columns)
    const a = insertV1Recording(db, 'a');
    const b = insertV1Recording(db, 'b');
    replaceSteps(db, a.seq, steps(3), 'test');
    migrate(db);
    expect(stepCount(db, a.seq)).toBe(3);
    expect(stepCount(db, b.seq)).toBe(0);

    replaceSteps(db, a.seq, steps(7), 'test');
    replaceSteps(db, b.seq, steps(2), 'test');
    expect([stepCount(db, a.seq), stepCount(db, b.seq)]).toEqual([7, 2]);
    replaceSteps(db, a.seq, [], 'test');
    expect(stepCount(db, a.seq)).toBe(0);

    // deleting a recording cascades through the triggers without error
    deleteRecordingRow(db, b.seq);
    expect(db.prepare(`SELECT COUNT(*) AS n FROM steps`).get()).toEqual({ n: 0 });
    db.close();
  });

  it('creates the keyframes table and the page indexes, dropping the old status index', () => {
    const db = new Database(':memory:');
    migrate(db);
    const indexes = (
      db
        .prepare(`SELECT name FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL`)
        .all() as {
        name: string;
      }[]
    ).map((r) => r.name);
    expect(indexes).toEqual(
      expect.arrayContaining([
        'recordings_status_created',
        'recordings_review_created',
        'recordings_os_created',
        'recordings_task',
        'recordings_duration',
        'recordings_steps',
        'reviews_recording',
      ]),
    );
    expect(indexes).not.toContain('recordings_status');
    const seq = insertRecording(db, {
      id: 'r',
      source: 'recorder',
      task: 't',
      description: '',
      status: 'complete',
      platform: { os: 'linux', system: '', release: '', version: '', machine: '', model: null },
      screen: { width: 1, height: 1, scale: 1, monitors: [] },
      videoStartMs: null,
      videoStartMethod: null,
      durationMs: null,
      appVersion: 'x',
      dir: 'recordings/r',
      startedAt: null,
      stoppedAt: null,
      sourceMetadata: null,
      capture: null,
      warnings: [],
      nowMs: 1,
    });
    db.prepare(
      `INSERT INTO keyframes (recording_seq, step_id, time_ms, frame, path, input_json, source,
        computed_at_ms) VALUES (?, 's', 1.5, 3, 'p', '{}', 'lo', 1)`,
    ).run(seq);
    deleteRecordingRow(db, seq);
    expect(db.prepare(`SELECT COUNT(*) AS n FROM keyframes`).get()).toEqual({ n: 0 });
    db.close();
  });
});
