// Text redaction (issue 14, item 3) end to end on a real library with a real video: an e-mail
// address and a card number typed (the address also in a window title, the accessibility tree
// and the task), both redacted as `redact-text` edits; every export format and the upload
// bundle (its data dump included) are searched byte by byte (JSON decoded, base64 blobs and gzip
// opened) for the texts and their digits-only forms; the code writes the placeholder as the
// description says; the raw key events type the placeholder; undo brings the text back.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveFfmpeg } from '../../../src/infra/ffmpeg/binary';
import { applyEdit, undoLastEdit } from '../../../src/services/edits/edit-service';
import { importAgentNetFolder } from '../../../src/services/import/agentnet-import';
import { exportRecordings } from '../../../src/services/export/export-service';
import { scanRecording } from '../../../src/services/privacy/scan-service';
import {
  redactAllFindings,
  redactFindings,
  textRedactionsOf,
} from '../../../src/services/privacy/text-redaction';
import { reduceRecording } from '../../../src/services/reduce-service';
import { buildBundle } from '../../../src/services/upload/bundle';
import { textRedactor } from '../../../src/pipeline/privacy/redact-text';
import {
  insertAxRecords,
  insertEvents,
  insertVideo,
  insertWindows,
  readEvents,
} from '../../../src/store';
import { filesUnder, leaks } from '../../helpers/leak-search';
import { tempLibrary } from '../../helpers/library';
import { FIXTURE_DIR } from '../../helpers/paths';
import { makeRecording } from '../../helpers/store';
import { EventScript } from '../../pipeline/reduce/event-script';

const EMAIL = 'alice.smith@example.com';
const CARD = '4111 1111 1111 1111';
const SECRETS = [EMAIL, CARD, CARD.replace(/ /g, ''), 'alice.smith'];
const OPTS = { appVersion: '0.0.0-test' };

const t = tempLibrary();
const outRoot = fs.mkdtempSync(path.join(os.tmpdir(), 'cua-redact-text-'));
let id = '';
let seq = 0;

/** The characters typed by the press rows of an AgentNet events.jsonl, joined. */
function pressedText(file: string): string {
  return fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as { action: string; name: string | null })
    .filter((r) => r.action === 'press' && r.name !== null)
    .map((r) => (r.name === 'space' ? ' ' : r.name!.length === 1 ? r.name : ''))
    .join('');
}

async function exportAll(name: string): Promise<string> {
  const root = path.join(outRoot, name);
  for (const format of ['agentnet-raw', 'agentnet-jsonl', 'standardized'] as const) {
    await exportRecordings(t.lib, [id], { ...OPTS, format, outDir: path.join(root, format) });
  }
  return root;
}

beforeAll(async () => {
  const rec = makeRecording(t.lib.db, { task: `Mail the receipt to ${EMAIL}` });
  id = rec.id;
  seq = rec.seq;
  const s = new EventScript(1_000);
  s.moveTo(100, 100).click().wait(300);
  s.type(`mail ${EMAIL}`, 40);
  s.wait(500).moveTo(300, 300).click().wait(300);
  s.type(`card ${CARD}`, 40);
  s.wait(500).moveTo(500, 500).click();
  insertEvents(t.lib.db, seq, s.events);
  insertWindows(t.lib.db, seq, [
    {
      tMs: 1_010,
      title: `Inbox – ${EMAIL} – Mail`,
      app: 'mail',
      pid: 1,
      bounds: null,
      windowId: '0x1',
    },
  ]);
  insertAxRecords(t.lib.db, seq, [
    {
      tMs: 1_020,
      kind: 'window',
      source: 'atspi',
      x: null,
      y: null,
      nodeCount: 2,
      rootName: 'Mail',
      treeJson: JSON.stringify({
        role: 'frame',
        name: 'Mail',
        states: [],
        bounds: { x: 0, y: 0, width: 10, height: 10 },
        children: [
          {
            role: 'text',
            name: 'To',
            value: EMAIL,
            states: [],
            bounds: { x: 0, y: 0, width: 10, height: 10 },
            children: [],
          },
        ],
      }),
      note: null,
    },
  ]);
  // a real 12 s video (5 fps) for the keyframes of the dataset formats
  const videoPath = `recordings/${id}/screen.mp4`;
  fs.mkdirSync(path.dirname(t.lib.resolve(videoPath)), { recursive: true });
  execFileSync((await resolveFfmpeg()).path, [
    '-loglevel',
    'error',
    '-f',
    'lavfi',
    '-i',
    'color=c=gray:s=320x200:r=5:d=12',
    '-c:v',
    'libx264',
    '-preset',
    'ultrafast',
    '-pix_fmt',
    'yuv420p',
    t.lib.resolve(videoPath),
  ]);
  insertVideo(t.lib.db, seq, 0, {
    path: videoPath,
    width: 320,
    height: 200,
    fps: 5,
    frameCount: 60,
    durationMs: 12_000,
    startMs: 0,
    startMethod: 'test',
    codec: 'h264',
    sizeBytes: fs.statSync(t.lib.resolve(videoPath)).size,
    sha256: null,
  });
  reduceRecording(t.lib, id);
}, 60_000);
afterAll(() => {
  t.cleanup();
  fs.rmSync(outRoot, { recursive: true, force: true });
});

describe('redact-text', () => {
  it('the redactor replaces texts, digits-only forms and typed key spans', () => {
    const r = textRedactor([{ text: CARD, placeholder: '[CARD]' }]);
    expect(r.string(`paid with ${CARD}, i.e. 4111111111111111; ref 94111111111111111`)).toBe(
      'paid with [CARD], i.e. [CARD]; ref 94111111111111111',
    );
    const events = new EventScript(0).type(`x ${CARD} y`, 10).events;
    const typed = r
      .events(events)
      .filter((e) => e.kind === 'keydown' && (e.char !== null || e.key === 'space'))
      .map((e) => e.char ?? ' ')
      .join('');
    expect(typed).toBe('x [CARD] y');
    expect(r.events(events)).toHaveLength(events.length);
    // corrected while typed: the span (with the erased key-downs inside it) is masked whole
    const email = textRedactor([{ text: EMAIL, placeholder: '[EMAIL]' }]);
    const s = new EventScript(0).type('mail alice.smith@exampel', 10);
    s.tap('backspace').tap('backspace').type('le.com done', 10);
    const out = email.events(s.events);
    expect(out).toHaveLength(s.events.length);
    const kept = out
      .filter((e) => e.kind === 'keydown' && (e.char !== null || e.key === 'space'))
      .map((e) => e.char ?? ' ')
      .join('');
    expect(kept).toBe('mail  done');
    expect(
      out
        .filter((e) => e.kind === 'keyup' && e.char !== null)
        .map((e) => e.char)
        .join(''),
    ).toBe('maildone');
  });

  it('redacts both findings in every export and the upload bundle; undo restores the text', async () => {
    const before = scanRecording(t.lib, id).findings;
    const cardIds = before.filter((f) => f.kind === 'card').map((f) => f.id);
    expect(cardIds.length).toBeGreaterThan(0);
    expect(before.filter((f) => f.kind === 'email').length).toBeGreaterThanOrEqual(3);
    const cards = redactFindings(t.lib, id, cardIds);
    expect(cards.map((c) => c.placeholder)).toEqual(cardIds.map(() => '[CARD]'));
    const emails = redactAllFindings(t.lib, id);
    expect(emails.length).toBeGreaterThan(0);
    expect(emails.every((e) => e.kind === 'email' && e.placeholder === '[EMAIL]')).toBe(true);
    expect(redactAllFindings(t.lib, id)).toEqual([]); // all resolved now
    expect(textRedactionsOf(t.lib, seq).map((r) => r.text)).toContain(EMAIL);
    // the library's own data never changes
    expect(readEvents(t.lib.db, seq).some((e) => e.char === '@')).toBe(true);

    const root = await exportAll('redacted');
    const bundleDir = path.join(outRoot, 'bundle');
    await buildBundle(t.lib, id, bundleDir, OPTS);
    expect(filesUnder(bundleDir).some((f) => f.endsWith('events.jsonl'))).toBe(true);
    expect([...leaks(root, SECRETS), ...leaks(bundleDir, SECRETS)]).toEqual([]);

    // the code writes the placeholder, and the description says the same
    const jsonl = fs.readFileSync(path.join(root, 'agentnet-jsonl', 'agentnet.jsonl'), 'utf8');
    const traj = (JSON.parse(jsonl) as { traj: { value: { code: string; action: string } }[] })
      .traj;
    const typing = traj.find((s) => s.value.code.includes('[EMAIL]'))!;
    expect(typing.value.code).toContain("pyautogui.write(message='mail [EMAIL]')");
    expect(traj.some((s) => s.value.code.includes("pyautogui.write(message='card [CARD]')"))).toBe(
      true,
    );
    // the AgentNet description of the step says the same (agentnet-raw's reduced rows)
    const folder = path.join(
      root,
      'agentnet-raw',
      fs.readdirSync(path.join(root, 'agentnet-raw'))[0]!,
    );
    const vis = fs
      .readFileSync(path.join(folder, 'reduced_events_vis.jsonl'), 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.stringify(JSON.parse(l)));
    expect(vis.some((l) => l.includes('"description":"⌨️ Type: mail [EMAIL]"'))).toBe(true);
    // the raw key events type the placeholders (the rest of each span masked)
    const raw = filesUnder(path.join(root, 'agentnet-raw')).find((f) =>
      f.endsWith('events.jsonl'),
    )!;
    expect(pressedText(raw)).toBe('mail [EMAIL]card [CARD]');

    // undo the address's redactions (the latest edits): it is back in a fresh export
    for (let i = 0; i < emails.length; i += 1) {
      undoLastEdit(t.lib, id);
    }
    const undone = await exportAll('undone');
    expect(leaks(undone, [EMAIL]).length).toBeGreaterThan(0);
    expect(leaks(undone, [CARD, CARD.replace(/ /g, '')])).toEqual([]);
    const again = fs.readFileSync(path.join(undone, 'agentnet-jsonl', 'agentnet.jsonl'), 'utf8');
    expect(again).toContain(`pyautogui.write(message='mail ${EMAIL}')`);
  }, 120_000);
});

describe('redact-text on the imported example recording', () => {
  it("leaves the imported source files home and the text out of the bundle's every file", async () => {
    const lib = tempLibrary();
    try {
      const ex = (await importAgentNetFolder(lib.lib, FIXTURE_DIR, OPTS)).id;
      const secret = 'turn on night light';
      applyEdit(lib.lib, ex, {
        op: 'redact-text',
        findingId: 'f'.repeat(16),
        text: secret,
        kind: 'secret',
      });
      const dir = path.join(outRoot, 'bundle-example');
      const bundle = await buildBundle(lib.lib, ex, dir, { ...OPTS, includeKeyframes: false });
      const keys = bundle.files.map((f) => f.relKey);
      expect(keys.filter((k) => k.startsWith('files/raw/'))).toEqual([]);
      expect(keys).toContain('agentnet/win10-display-settings/events.jsonl');
      expect(leaks(dir, [secret])).toEqual([]);
      const task = fs.readFileSync(
        path.join(dir, 'agentnet/win10-display-settings/task_name.json'),
        'utf8',
      );
      expect(task).toContain('[SECRET]');
    } finally {
      lib.cleanup();
    }
  }, 60_000);
});
