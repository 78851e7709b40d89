// Test helpers: in-memory databases and recordings with sane defaults.
import { randomUUID } from 'node:crypto';
import type { RawEvent, Step } from '../../src/shared/domain';
import { insertRecording, openDatabase, type Db, type NewRecording } from '../../src/store';

/** A migrated in-memory database. */
export function createTestDb(): Db {
  return openDatabase(':memory:');
}

/** Inserts a recording with defaults; returns its seq and id. */
export function makeRecording(
  db: Db,
  overrides: Partial<NewRecording> = {},
): { seq: number; id: string } {
  const id = overrides.id ?? randomUUID();
  const seq = insertRecording(db, {
    id,
    source: 'recorder',
    task: 'test task',
    description: '',
    status: 'complete',
    platform: {
      os: 'linux',
      system: 'Linux',
      release: '6',
      version: '6',
      machine: 'x86_64',
      model: null,
    },
    screen: { width: 1280, height: 800, scale: 1, monitors: [] },
    videoStartMs: 0,
    videoStartMethod: 'test',
    durationMs: 1000,
    appVersion: '0.0.0-test',
    dir: `recordings/${id}`,
    startedAt: null,
    stoppedAt: null,
    sourceMetadata: null,
    capture: null,
    warnings: [],
    nowMs: Date.now(),
    ...overrides,
  });
  return { seq, id };
}

/**
 * A plain single left click at the middle of the screen, `index` seconds in and 100 ms long, with
 * no target and no diagnostics: a step whose edits cost the store little.
 */
export function clickStep(id: string, index: number, label: string): Step {
  return {
    id,
    index,
    kind: 'click',
    description: 'Single left Click',
    label,
    calls: [{ name: 'click', args: { x: { float: 0.5 }, y: { float: 0.5 } } }],
    startMs: index * 1000,
    endMs: index * 1000 + 100,
    eventStartIdx: null,
    coordinate: { x: 640, y: 400 },
    preMove: null,
    target: null,
    extra: {},
    diagnostics: [],
  };
}

/** `n` synthetic raw events cycling through every kind. */
export function syntheticEvents(n: number, startIdx = 0): RawEvent[] {
  const events: RawEvent[] = [];
  for (let i = 0; i < n; i += 1) {
    const idx = startIdx + i;
    const phase = idx % 10;
    const base: RawEvent = {
      idx,
      tMs: idx * 8.0625,
      kind: 'move',
      x: idx % 1280,
      y: (idx * 7) % 800,
      button: null,
      keycode: null,
      key: null,
      char: null,
      keyRaw: null,
      modifiers: 0,
      dx: null,
      dy: null,
      flags: 0,
    };
    if (phase === 7) {
      events.push({ ...base, kind: 'down', button: 'left' });
    } else if (phase === 8) {
      events.push({ ...base, kind: 'up', button: 'left' });
    } else if (phase === 9) {
      events.push({
        ...base,
        kind: idx % 20 === 9 ? 'keydown' : 'wheel',
        key: 'a',
        char: 'a',
        keycode: 30,
        dx: 0,
        dy: -1,
      });
    } else {
      events.push(base);
    }
  }
  return events;
}
