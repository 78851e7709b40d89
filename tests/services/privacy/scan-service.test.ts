// The PII scan on a real SQLite library: every source (typed text of the shown steps and of the
// raw keys, window titles, accessibility names with ancestors, task text, label data and step
// labels), the step a finding belongs to, masked excerpts, one finding per identical match and
// ids that stay the same from scan to scan. Real detectors (src/pipeline/privacy/detect.ts).
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scanRecording } from '../../../src/services/privacy/scan-service';
import { stepIndexAt } from '../../../src/services/privacy/findings';
import { reduceRecording } from '../../../src/services/reduce-service';
import { effectiveSteps } from '../../../src/services/steps';
import { validateMethodOutput } from '../../../src/shared/contract/validators';
import type { PiiFinding, Step } from '../../../src/shared/domain';
import {
  appendEdit,
  insertAxRecords,
  insertEvents,
  insertWindows,
  listSteps,
} from '../../../src/store';
import { serviceContext } from '../../helpers/context';
import { tempLibrary } from '../../helpers/library';
import { makeRecording } from '../../helpers/store';
import { EventScript } from '../../pipeline/reduce/event-script';

const EMAIL = 'alice@example.com';
const KEY = 'AKIAIOSFODNN7EXAMPLE';
const node = (role: string, name: string, children: unknown[] = []) => ({
  role,
  name,
  states: ['enabled', 'showing'],
  bounds: { x: 0, y: 0, width: 10, height: 10 },
  children,
});

describe('scanRecording (real library, real detectors)', () => {
  const t = tempLibrary();
  let id = '';
  let seq = 0;
  /** Key-down time of the first character of `text` in the raw events. */
  const typedAt: Record<string, number> = {};
  let reduced: Step[] = [];
  let findings: PiiFinding[] = [];
  const of = (source: string, kind: string) =>
    findings.filter((f) => f.source === source && f.kind === kind);

  beforeAll(() => {
    const rec = makeRecording(t.lib.db, {
      task: 'Send the report to bob@example.com',
      platform: {
        os: 'win32',
        system: 'Windows',
        release: '10',
        version: '10',
        machine: 'x86_64',
        model: null,
      },
    });
    id = rec.id;
    seq = rec.seq;
    const s = new EventScript(10_000);
    const typeMarked = (text: string, marked: string) => {
      typedAt[marked] = s.now + text.indexOf(marked) * 150;
      s.type(text, 100);
    };
    s.moveTo(100, 100).click(); // step 0
    s.wait(500);
    typeMarked(`mail ${EMAIL}`, EMAIL); // step 1
    s.wait(1000).moveTo(300, 300).click(); // step 2
    s.wait(500);
    typeMarked(`key ${KEY}`, KEY); // step 3 (deleted below)
    s.wait(3000).moveTo(500, 500).click(); // step 4
    insertEvents(t.lib.db, seq, s.events);
    reduceRecording(t.lib, id);
    reduced = listSteps(t.lib.db, seq);

    insertWindows(t.lib.db, seq, [
      {
        tMs: 10_010,
        title: 'carol@example.org to heidi@example.org – Mail',
        app: 'mail',
        pid: 1,
        bounds: null,
        windowId: '0x1',
      },
      { tMs: 10_020, title: 'Editor', app: 'edit', pid: 2, bounds: null, windowId: '0x2' },
    ]);
    const snapshotAt = reduced[2]!.startMs + 10;
    const snapshot = (tMs: number) => ({
      tMs,
      kind: 'window' as const,
      source: 'atspi',
      x: null,
      y: null,
      nodeCount: 3,
      rootName: 'Editor',
      treeJson: JSON.stringify(
        node('frame', 'Editor', [
          { ...node('text', 'To'), description: 'dave@example.net' },
          node('push button', 'Send'),
        ]),
      ),
      note: null,
    });
    insertAxRecords(t.lib.db, seq, [
      // the same window twice in one step: one finding, at the first
      snapshot(snapshotAt + 20),
      snapshot(snapshotAt),
      {
        tMs: snapshotAt + 5,
        kind: 'element',
        source: 'atspi',
        x: 300,
        y: 300,
        nodeCount: 2,
        rootName: 'Send',
        // the element first, then its ancestors: the address is an ancestor's name
        treeJson: JSON.stringify({
          app: 'edit',
          isSecure: false,
          path: [node('push button', 'Send'), node('panel', 'Reply to eve@example.com')],
        }),
        note: null,
      },
    ]);
    t.lib.db
      .prepare(
        `INSERT INTO labels (recording_seq, data_json, updated_at_ms) VALUES (?, ?, 0)
         ON CONFLICT (recording_seq) DO UPDATE SET data_json = excluded.data_json`,
      )
      .run(seq, JSON.stringify({ notes: ['checked', { by: 'frank@example.com' }] }));
    appendEdit(
      t.lib.db,
      seq,
      { op: 'relabel', stepId: reduced[2]!.id, label: 'ask grace@example.com' },
      { nowMs: 1 },
    );
    appendEdit(t.lib.db, seq, { op: 'delete', stepId: reduced[3]!.id }, { nowMs: 2 });
    findings = scanRecording(t.lib, id).findings;
  });

  afterAll(() => t.cleanup());

  it('reduced the script to click, write, click, write, click', () => {
    expect(reduced.map((s) => s.kind)).toEqual(['click', 'write', 'click', 'write', 'click']);
    expect(effectiveSteps(t.lib, seq).map((s) => s.kind)).toEqual([
      'click',
      'write',
      'click',
      'click',
    ]);
  });

  it('finds typed text at its write step, at the key-down of its first character', () => {
    const typed = of('typed', 'email');
    // the shown step's text and the raw keys' text are one finding
    expect(typed).toHaveLength(1);
    expect(typed[0]).toMatchObject({ stepIndex: 1, tMs: typedAt[EMAIL] });
  });

  it('finds typed text whose step an edit deleted in the raw keys, at the nearest step', () => {
    const secrets = of('typed', 'secret');
    expect(secrets).toHaveLength(1);
    // the deleted write sat between the click at step 2 and the click now at step 3
    expect(secrets[0]).toMatchObject({ stepIndex: 2, tMs: typedAt[KEY] });
  });

  it('finds window titles, accessibility names with ancestors, task text and labels', () => {
    const titles = of('window-title', 'email');
    expect(titles.map((f) => [f.stepIndex, f.tMs])).toEqual([
      [0, 10_010],
      [0, 10_010],
    ]);
    // each excerpt masks its own match and the other one beside it
    expect(titles.map((f) => f.excerpt).sort()).toEqual([
      'ca*************rg to ****************…',
      '…**************** to he*************rg – Mail',
    ]);
    const ax = of('accessibility', 'email');
    expect(ax.map((f) => f.stepIndex)).toEqual([2, 2]);
    expect(ax.map((f) => f.tMs)).toEqual([reduced[2]!.startMs + 10, reduced[2]!.startMs + 15]);
    expect(of('task', 'email')).toEqual([expect.objectContaining({ stepIndex: null, tMs: null })]);
    const labels = of('label', 'email');
    // the label data (no step, no time) and the relabelled step; the write step's description
    // only repeats its typed text, which is the typed finding
    expect(labels.map((f) => [f.stepIndex, f.tMs])).toEqual([
      [null, null],
      [2, reduced[2]!.startMs],
    ]);
    expect(findings).toHaveLength(9);
  });

  it('masks the match in every excerpt and keeps the text around it', () => {
    const all = [
      EMAIL,
      KEY,
      'bob@example.com',
      'carol@example.org',
      'heidi@example.org',
      'dave@example.net',
      'eve@example.com',
      'frank@example.com',
      'grace@example.com',
    ];
    for (const f of findings) {
      for (const secret of all) {
        expect(f.excerpt).not.toContain(secret);
      }
    }
    expect(of('task', 'email')[0]!.excerpt).toContain('Send the report to');
    expect(of('typed', 'email')[0]!.excerpt).toContain('mail');
  });

  it('sorts by time (untimed first) and gives ids that are the same on every scan', () => {
    const times = findings.map((f) => f.tMs ?? -Infinity);
    expect(times).toEqual([...times].sort((a, b) => a - b));
    expect(findings.slice(0, 2).map((f) => f.source)).toEqual(['task', 'label']);
    const again = scanRecording(t.lib, id).findings;
    expect(again).toEqual(findings);
    expect(new Set(findings.map((f) => f.id)).size).toBe(findings.length);
    const typed = of('typed', 'email')[0]!;
    const expected = createHash('sha256')
      .update(`typed|email|${typedAt[EMAIL]}|${EMAIL}`)
      .digest('hex')
      .slice(0, 16);
    expect(typed.id).toBe(expected);
  });

  it('answers over the contract (schema-valid) and refuses an unknown id with NOT_FOUND', async () => {
    const { services } = serviceContext(t.lib);
    try {
      const r = await services.dispatch('privacy:scan', { id });
      expect(r.ok && validateMethodOutput('privacy:scan', r.value).ok).toBe(true);
      // the contract adds each finding's resolution (none here: no accept or redact edits)
      const unresolved = findings.map((f) => ({ ...f, resolved: null }));
      expect(r.ok && (r.value as { findings: PiiFinding[] }).findings).toEqual(unresolved);
      const missing = await services.dispatch('privacy:scan', { id: 'no-such-recording' });
      expect(!missing.ok && missing.error.code).toBe('NOT_FOUND');
      await expect(services.scanRecording('no-such-recording')).rejects.toMatchObject({
        code: 'NOT_FOUND',
      });
      // a unique prefix works from the services (the CLI's convenience)
      expect((await services.scanRecording(id.slice(0, 8))).findings).toEqual(findings);
    } finally {
      await services.close();
    }
  });
});

describe('scanRecording ids across edits', () => {
  it('keeps a typed finding and its id when an edit rewrites the step (its keystrokes go)', () => {
    const t = tempLibrary();
    try {
      const rec = makeRecording(t.lib.db, {
        platform: {
          os: 'win32',
          system: 'Windows',
          release: '10',
          version: '10',
          machine: 'x86_64',
          model: null,
        },
      });
      const s = new EventScript(10_000);
      s.moveTo(100, 100).click().wait(500);
      const at = s.now + 'mail '.length * 150;
      s.type(`mail ${EMAIL}`, 100).wait(1000).moveTo(300, 300).click();
      insertEvents(t.lib.db, rec.seq, s.events);
      reduceRecording(t.lib, rec.id);
      const before = scanRecording(t.lib, rec.id).findings;
      expect(before).toEqual([
        expect.objectContaining({ source: 'typed', kind: 'email', stepIndex: 1, tMs: at }),
      ]);
      const write = listSteps(t.lib.db, rec.seq)[1]!;
      appendEdit(
        t.lib.db,
        rec.seq,
        {
          op: 'set-action',
          stepId: write.id,
          calls: [{ name: 'write', args: { message: `Mail ${EMAIL}` } }],
        },
        { nowMs: 1 },
      );
      const edited = effectiveSteps(t.lib, rec.seq)[1]!;
      expect(edited.extra.keystrokes).toBeUndefined();
      expect(scanRecording(t.lib, rec.id).findings.map((f) => [f.id, f.tMs])).toEqual([
        [before[0]!.id, at],
      ]);
    } finally {
      t.cleanup();
    }
  });
});

describe('scanRecording without steps or PII', () => {
  it('finds nothing in ordinary text, and untimed/stepless findings when there are no steps', () => {
    const t = tempLibrary();
    try {
      const plain = makeRecording(t.lib.db, { task: 'Resize the window to 1280x800' });
      insertWindows(t.lib.db, plain.seq, [
        { tMs: 5, title: 'Terminal', app: 'term', pid: 1, bounds: null, windowId: null },
      ]);
      expect(scanRecording(t.lib, plain.id).findings).toEqual([]);
      const titled = makeRecording(t.lib.db, { task: 'Nothing here' });
      insertWindows(t.lib.db, titled.seq, [
        { tMs: 5, title: 'zoe@example.com', app: 'mail', pid: 1, bounds: null, windowId: null },
      ]);
      expect(scanRecording(t.lib, titled.id).findings).toEqual([
        expect.objectContaining({ source: 'window-title', kind: 'email', stepIndex: null, tMs: 5 }),
      ]);
    } finally {
      t.cleanup();
    }
  });
});

describe('stepIndexAt', () => {
  const steps = [
    { index: 0, startMs: 100, endMs: 200 },
    { index: 1, startMs: 300, endMs: 400 },
    { index: 2, startMs: 390, endMs: 500 },
  ];
  it.each([
    [150, 0],
    [250, 0], // 50 from either: the earlier
    [260, 1],
    [395, 1], // inside two: the first
    [50, 0],
    [900, 2],
  ])('%d ms → step %d', (tMs, index) => {
    expect(stepIndexAt(steps, tMs)).toBe(index);
  });
  it('null without a time or without steps', () => {
    expect(stepIndexAt(steps, null)).toBeNull();
    expect(stepIndexAt([], 100)).toBeNull();
  });
});
