// Issue 26, privacy faults (README rows 29–30), end to end with real parts.
//
// Row 29: a form of four fields (e-mail, card, phone, access key) filled with Tab between them
// is reduced to one step `write, press('tab'), write, …`; the scan read its writes joined with
// no separator, so nothing matched and the export shipped the card and the key. Recorded for
// real: Xvfb + openbox + AT-SPI, a GTK form typed into by xdotool, the services' record session,
// real ffmpeg and SQLite; the scan, the export's refusal and the redaction by the real CLI.
import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { S3Client } from '@aws-sdk/client-s3';
import { createServices } from '../../src/services/create-services';
import { openLibrary } from '../../src/services/library/library';
import { buildBundle, type Bundle } from '../../src/services/upload/bundle';
import { UploadQueue } from '../../src/services/upload/queue';
import { S3ObjectStore } from '../../src/services/upload/s3-client';
import type { UploadTarget } from '../../src/services/upload/target';
import type { PiiFinding } from '../../src/shared/domain';
import { startDesktop, type Desktop } from '../helpers/desktop';
import { runCli } from '../helpers/cli';
import { tempLibrary } from '../helpers/library';
import { startSwift, type Swift } from '../helpers/swift';
import { createBucket, listObjects, rawClient, swiftTarget } from '../services/upload/helpers';
import { SYSTEM_PYTHON } from '../fixtures/apps/gtk-form';
import { redactKeyEvents, textRedactor } from '../../src/pipeline/privacy/redact-text';
import { typingPhrase } from '../../src/pipeline/reduce/describe';
import { EventScript } from '../pipeline/reduce/event-script';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const CONTACT_FORM = path.resolve(import.meta.dirname, '../fixtures/apps/gtk-contact-form.py');
const EMAIL = 'alice.smith@example.org';
const CARD = '4111 1111 1111 1111';
const PHONE = '+1 415 555 0132';
const KEY = 'AKIAIOSFODNN7EXAMPLE';

type Rect = { cx: number; cy: number };
type ContactForm = {
  widgets: Record<'email' | 'card' | 'phone' | 'key' | 'submit', Rect>;
  /** The text of each field, as the form holds it. */
  values(): Promise<Record<string, string>>;
  close(): Promise<void>;
};

/** Starts tests/fixtures/apps/gtk-contact-form.py and waits for its `ready` line. */
async function launchContactForm(desktop: Desktop): Promise<ContactForm> {
  const child: ChildProcess = desktop.spawn(SYSTEM_PYTHON, [CONTACT_FORM]);
  const lines: Record<string, unknown>[] = [];
  let buffer = '';
  let stderr = '';
  child.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
  child.stdout?.on('data', (d: Buffer) => {
    buffer += d.toString();
    let nl = buffer.indexOf('\n');
    while (nl >= 0) {
      lines.push(JSON.parse(buffer.slice(0, nl)) as Record<string, unknown>);
      buffer = buffer.slice(nl + 1);
      nl = buffer.indexOf('\n');
    }
  });
  const waitFor = async (type: string): Promise<Record<string, unknown>> => {
    for (let i = 0; i < 300; i += 1) {
      const found = lines.find((l) => l.type === type);
      if (found) {
        lines.splice(lines.indexOf(found), 1);
        return found;
      }
      await sleep(50);
    }
    throw new Error(`gtk-contact-form: no ${type} line; stderr:\n${stderr}`);
  };
  const ready = await waitFor('ready');
  return {
    widgets: ready.widgets as ContactForm['widgets'],
    async values() {
      child.stdin?.write(`${JSON.stringify({ cmd: 'values' })}\n`);
      return (await waitFor('values')).values as Record<string, string>;
    },
    async close() {
      child.stdin?.end(`${JSON.stringify({ cmd: 'quit' })}\n`);
      await sleep(200);
    },
  };
}

function filesUnder(dir: string): string[] {
  return fs
    .readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => path.join(e.parentPath, e.name));
}

describe(
  'item 29: a form filled with Tab (real Xvfb recording, real CLI)',
  { timeout: 180_000 },
  () => {
    let desktop: Desktop;
    let form: ContactForm;
    const t = tempLibrary();
    const outDir = fs.mkdtempSync(path.join(os.tmpdir(), 'cua-privacy-out-'));
    let id = '';

    beforeAll(async () => {
      desktop = await startDesktop();
      form = await launchContactForm(desktop);
      const services = createServices(t.lib, {
        appVersion: 'test',
        env: desktop.env,
        log: () => undefined,
      });
      try {
        const x = (...args: string[]) => desktop.run('xdotool', args);
        const stop = new AbortController();
        let onStarted = (): void => undefined;
        const started = new Promise<void>((resolve) => (onStarted = resolve));
        const run = services.record({
          task: 'Fill in the contact details',
          fps: 10,
          signal: stop.signal,
          onStarted: () => onStarted(),
          keepKeyframes: () => false,
        });
        await Promise.race([started, run]);
        await sleep(300);
        const w = form.widgets;
        await x('mousemove', String(w.email.cx), String(w.email.cy));
        await sleep(120);
        await x('click', '1');
        await sleep(300);
        for (const [i, text] of [EMAIL, CARD, PHONE, KEY].entries()) {
          if (i > 0) {
            await x('key', 'Tab');
            await sleep(150);
          }
          await x('type', '--delay', '15', text);
          await sleep(150);
        }
        await sleep(300);
        await x('mousemove', String(w.submit.cx), String(w.submit.cy));
        await sleep(120);
        await x('click', '1');
        await sleep(400);
        stop.abort();
        ({ id } = await run);
        await services.reduceRecording(id);
      } finally {
        await services.close();
      }
    }, 90_000);

    afterAll(async () => {
      await form?.close();
      await desktop?.stop();
      t.cleanup();
      fs.rmSync(outDir, { recursive: true, force: true });
    });

    it('item 29: four fields filled with Tab are one step; scan finds each; export without --allow-pii is refused naming the card and the secret', async () => {
      // the text really went into four fields (Tab moved the focus), and the reducer made one
      // step of it: write, press('tab'), write, …
      expect(await form.values()).toEqual({ email: EMAIL, card: CARD, phone: PHONE, key: KEY });
      const shown = await runCli(['show', id, '--json', '--library', t.dir]);
      expect(shown.code, shown.stderr).toBe(0);
      const steps = (JSON.parse(shown.stdout) as { steps: { index: number; code: string }[] })
        .steps;
      const typing = steps.filter((s) => s.code.includes(EMAIL));
      expect(typing, steps.map((s) => s.code).join('\n')).toHaveLength(1);
      const code = typing[0]!.code;
      for (const text of [CARD, PHONE, KEY]) {
        expect(code).toContain(text);
      }
      expect(code.match(/press\('tab'\)|press\(keys=\['tab'\]\)|'tab'/g)?.length).toBe(3);

      const scan = await runCli(['scan', id, '--json', '--library', t.dir]);
      expect(scan.code, scan.stderr).toBe(0);
      const findings = (JSON.parse(scan.stdout) as { findings: PiiFinding[] }).findings;
      const typed = findings.filter((f) => f.source === 'typed');
      const kinds = typed.map((f) => f.kind).sort();
      expect(kinds, JSON.stringify(findings, null, 1)).toEqual([
        'card',
        'email',
        'phone',
        'secret',
      ]);
      for (const f of typed) {
        expect(f.stepIndex).toBe(typing[0]!.index);
        expect(f.excerpt).not.toMatch(/alice\.smith@|4111 1111 1111|415 555|AKIAIOSFODNN7/);
      }

      const refused = await runCli([
        'export',
        id,
        '--format',
        'agentnet-raw',
        '--out',
        path.join(outDir, 'refused'),
        '--library',
        t.dir,
      ]);
      expect(refused.code).not.toBe(0);
      expect(refused.stderr).toMatch(/PII_UNRESOLVED/);
      expect(refused.stderr).toMatch(/\bcard\b/);
      expect(refused.stderr).toMatch(/\bsecret\b/);
      expect(fs.existsSync(path.join(outDir, 'refused'))).toBe(false);
    });

    it('item 29: redacting the findings masks each field in the export (code, raw keys)', async () => {
      const redact = await runCli(['scan', id, '--redact-all', '--library', t.dir]);
      expect(redact.code, redact.stderr).toBe(0);
      const out = path.join(outDir, 'redacted');
      const exported = await runCli([
        'export',
        id,
        '--format',
        'agentnet-raw',
        '--out',
        out,
        '--library',
        t.dir,
      ]);
      expect(exported.code, exported.stderr).toBe(0);
      const texts = filesUnder(out)
        .filter((f) => !f.endsWith('.mp4'))
        .map((f) => fs.readFileSync(f, 'utf8'))
        .join('\n');
      for (const leaked of [EMAIL, CARD, PHONE, KEY, '4111111111111111', 'AKIAIOSFODNN7']) {
        expect(texts).not.toContain(leaked);
      }
      for (const placeholder of ['[EMAIL]', '[CARD]', '[PHONE]', '[SECRET]']) {
        expect(texts).toContain(placeholder);
      }
    });
  },
);

describe('item 29: redaction spans follow the pieces of typed text', () => {
  /** The characters the key-downs type after redaction, a Tab shown as `|`. */
  const typed = (events: ReturnType<typeof redactKeyEvents>) =>
    events
      .filter((e) => e.kind === 'keydown')
      .map((e) => (e.key === 'tab' ? '|' : (e.char ?? (e.key === 'space' ? ' ' : '_'))))
      .join('');

  it('item 29: each field of a form filled with Tab is masked on its own; no span crosses a Tab', () => {
    const s = new EventScript(10_000);
    s.moveTo(100, 100).click().wait(200);
    s.type('ab12', 40).tap('tab').type('34cd', 40).tap('tab');
    s.type(CARD, 40).tap('tab').type(KEY, 40);
    const events = s.events;
    expect(typed(events)).toBe(`ab12|34cd|${CARD}|${KEY}`);
    // "1234" is typed only across a Tab (two fields): not a piece of text, nothing masked
    expect(typed(redactKeyEvents(events, [{ text: '1234', placeholder: '[X]' }]))).toBe(
      typed(events),
    );
    // the card and the key, each in its own field: each span starts right after its Tab
    const redacted = redactKeyEvents(events, [
      { text: CARD, placeholder: '[CARD]' },
      { text: KEY, placeholder: '[SECRET]' },
    ]);
    expect(typed(redacted)).toBe(
      `ab12|34cd|[CARD]${'_'.repeat(CARD.length - 6)}|[SECRET]${'_'.repeat(KEY.length - 8)}`,
    );
    expect(redacted.length).toBe(events.length);
  });

  it('item 29: a long key in one field, cut short in the step label, is masked there too', () => {
    const jwt =
      'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.' +
      'dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U';
    const label = typingPhrase([
      { name: 'write', args: { message: EMAIL } },
      { name: 'press', args: { keys: ['tab'] } },
      { name: 'write', args: { message: jwt } },
    ])!;
    // the label quotes the first 39 characters of the key: no detector and no whole text match
    expect(label).toContain(`${jwt.slice(0, 39)}\u2026`);
    const redacted = textRedactor([
      { text: EMAIL, placeholder: '[EMAIL]' },
      { text: jwt, placeholder: '[SECRET]' },
    ]).string(label);
    expect(redacted).toBe('Type "[EMAIL]", press tab and type "[SECRET]\u2026"');
  });
});

// Row 30: every top-level file of an imported AgentNet folder is kept under raw/ and uploaded as
// files/raw/*, but the scan read only database fields: a secret in html.jsonl or in any extra
// file left with no finding. The folder is the example recording with a GitHub token planted in
// html.jsonl, a card number in an extra text file and an AWS key in an extra binary file;
// imported, scanned, exported and uploaded by the real CLI, `uploads:enqueue` through the
// contract, uploads to Swift (real S3) through the upload queue.
const GH_TOKEN = `ghp_${'R7xK2mQ9vL4nT8wZ3pY6sB1cF5hJ0dG2aE4u'}`;
const NOTE_CARD = '4111 1111 1111 1111';
const BINARY_KEY = 'AKIAQ3EGRX7N5ZLW4HUT';
const STRIPE_KEY = 'sk_live_4eC39HqLyjWDarjtT1zdp7dc';
const EXAMPLE = path.resolve(
  import.meta.dirname,
  '../../examples/agentnet-raw/win10-display-settings',
);
const BUCKET = 'raw-files';

describe('item 30: files kept from imports (real CLI, Swift)', { timeout: 240_000 }, () => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'cua-privacy-raw-'));
  const lib = path.join(root, 'lib');
  const folder = path.join(root, 'win10-display-settings');
  let swift: Swift;
  let client: S3Client;
  let id = '';
  const cli = (args: string[]) => runCli([...args, '--library', lib], swift.env);
  const scan = async (): Promise<PiiFinding[]> => {
    const r = await cli(['scan', id, '--json']);
    expect(r.code, r.stderr).toBe(0);
    return (JSON.parse(r.stdout) as { findings: PiiFinding[] }).findings;
  };
  /** Uploads through the upload queue (no keyframes: not what is looked at); the keys sent. */
  const uploadByQueue = async (prefix: string, allowPii: boolean): Promise<string[]> => {
    const l = openLibrary(lib);
    try {
      const q = new UploadQueue(l, {
        openStore: (to: UploadTarget) =>
          new S3ObjectStore(to, { kind: 'static', credentials: swift.credentials }),
        engine: { appVersion: 'test', includeKeyframes: false },
      });
      const [queued] = q.enqueue([id], {
        target: swiftTarget(swift, BUCKET, prefix),
        annotator: 'bo',
        allowPii,
      });
      const [outcome] = await q.run([queued!.uploadId]);
      expect(outcome).toMatchObject({ ok: true });
    } finally {
      l.close();
    }
    return [...(await listObjects(client, BUCKET, `${prefix}/`)).keys()];
  };

  beforeAll(async () => {
    fs.cpSync(EXAMPLE, folder, { recursive: true });
    fs.writeFileSync(
      path.join(folder, 'html.jsonl'),
      `${JSON.stringify({
        time_stamp: 215.9,
        url: 'https://git.example.org/settings/tokens',
        html: `<input name="token" value="${GH_TOKEN}">`,
      })}\n`,
    );
    fs.writeFileSync(path.join(folder, 'notes.txt'), `paid with ${NOTE_CARD}\nall done\n`);
    fs.writeFileSync(
      path.join(folder, 'capture.bin'),
      Buffer.concat([Buffer.from([0, 1, 2, 0]), Buffer.from(`key=${BINARY_KEY}`)]),
    );
    swift = await startSwift();
    client = rawClient(swift);
    await createBucket(client, BUCKET);
    const imported = await cli(['import', folder, '--no-keyframes', '--json']);
    expect(imported.code, imported.stderr).toBe(0);
    id = /"id":\s*"([0-9a-f-]{36})"/.exec(imported.stdout)![1]!;
  }, 120_000);

  afterAll(async () => {
    client?.destroy();
    await swift?.stop();
    fs.rmSync(root, { recursive: true, force: true });
  });

  it('item 30: scan finds the secrets planted in html.jsonl and in an extra file, masked, with the file named', async () => {
    const findings = await scan();
    const raw = findings.filter((f) => f.source === 'raw-file');
    expect(
      raw.map((f) => [f.kind, f.file]),
      JSON.stringify(findings, null, 1),
    ).toEqual(
      expect.arrayContaining([
        ['secret', 'html.jsonl'],
        ['card', 'notes.txt'],
      ]),
    );
    // the binary file cannot be read as text: it is not scanned (and never leaves, below)
    expect(raw.filter((f) => f.file === 'capture.bin')).toEqual([]);
    for (const f of findings) {
      expect(f.excerpt).not.toContain(GH_TOKEN.slice(4, 20));
      expect(f.excerpt).not.toMatch(/4111 1111 1111/);
    }
    const table = await cli(['scan', id]);
    expect(table.stdout).toMatch(/raw\/html\.jsonl/);
    expect(table.stdout).toMatch(/raw\/notes\.txt/);
  });

  it('item 30: upload, uploads:enqueue and export refuse without --allow-pii; nothing is sent or written', async () => {
    const up = await cli([
      'upload',
      id,
      '--to',
      `s3://${BUCKET}/cli`,
      '--path-style',
      '--annotator',
      'bo',
    ]);
    expect(up.code).not.toBe(0);
    expect(up.stderr).toContain('PII_UNRESOLVED');
    expect(up.stderr).toMatch(/1 card \(raw-file\)/);
    expect(up.stderr).toMatch(/1 secret \(raw-file\)/);

    const l = openLibrary(lib);
    const services = createServices(l, {
      appVersion: 'test',
      env: swift.env,
      log: () => undefined,
      uploads: {
        openStore: (to: UploadTarget) =>
          new S3ObjectStore(to, { kind: 'static', credentials: swift.credentials }),
      },
    });
    try {
      const r = await services.dispatch('uploads:enqueue', {
        ids: [id],
        to: `s3://${BUCKET}/enqueue`,
        annotator: 'bo',
      });
      expect(r.ok ? 'ok' : r.error.code, r.ok ? '' : r.error.message).toBe('PII_UNRESOLVED');
    } finally {
      await services.close();
      l.close();
    }
    expect((await listObjects(client, BUCKET, '')).size).toBe(0);

    // the agentnet-raw export carries none of the kept files, and is refused by the same gate
    const out = path.join(root, 'export');
    const exp = await cli(['export', id, '--format', 'agentnet-raw', '--out', out]);
    expect(exp.code).not.toBe(0);
    expect(exp.stderr).toContain('PII_UNRESOLVED');
    expect(fs.existsSync(out)).toBe(false);
    const allowed = await cli([
      'export',
      id,
      '--format',
      'agentnet-raw',
      '--out',
      out,
      '--allow-pii',
    ]);
    expect(allowed.code, allowed.stderr).toBe(0);
    const exported = filesUnder(out);
    expect(exported.map((f) => path.basename(f))).not.toContain('notes.txt');
    const bytes = Buffer.concat(exported.map((f) => fs.readFileSync(f)));
    for (const secret of [GH_TOKEN, NOTE_CARD, BINARY_KEY]) {
      expect(bytes.includes(secret)).toBe(false);
    }
  });

  it('item 30: with --allow-pii the text files go, the binary stays; with privacy.uploadRawFiles off none goes and none is scanned', async () => {
    const on = await uploadByQueue('on', true);
    const rawKeys = (keys: string[]) =>
      keys.filter((k) => k.includes('/files/raw/')).map((k) => k.split('/files/raw/')[1]);
    expect(rawKeys(on)).toEqual(
      expect.arrayContaining(['html.jsonl', 'notes.txt', 'events.jsonl']),
    );
    expect(rawKeys(on)).not.toContain('capture.bin');

    const l = openLibrary(lib);
    const services = createServices(l, { appVersion: 'test', log: () => undefined });
    try {
      const set = await services.dispatch('settings:set', { privacy: { uploadRawFiles: false } });
      expect(
        set.ok ? (set.value as { privacy: { uploadRawFiles: boolean } }).privacy : set.error,
      ).toMatchObject({
        uploadRawFiles: false,
      });
    } finally {
      await services.close();
      l.close();
    }
    expect((await scan()).filter((f) => f.source === 'raw-file')).toEqual([]);
    // nothing blocks now: the upload needs no --allow-pii, and carries no kept file
    const off = await uploadByQueue('off', false);
    expect(rawKeys(off)).toEqual([]);
    expect(off.some((k) => k.includes('/video/'))).toBe(true);
  });

  it('item 30: a submission staged before privacy.uploadRawFiles was turned off is built again without the kept files', async () => {
    const l = openLibrary(lib);
    const services = createServices(l, { appVersion: 'test', log: () => undefined });
    const stage = path.join(lib, 'uploads', 'staged-by-test');
    const rawOf = (b: Bundle) => b.files.filter((f) => f.relKey.startsWith('files/raw/'));
    try {
      const setRaw = async (on: boolean) => {
        const r = await services.dispatch('settings:set', { privacy: { uploadRawFiles: on } });
        expect(r.ok).toBe(true);
      };
      await setRaw(true);
      const staged = await buildBundle(l, id, stage, {
        appVersion: 'test',
        includeKeyframes: false,
      });
      expect(rawOf(staged).length).toBeGreaterThan(0);
      await setRaw(false);
      const rebuilt = await buildBundle(l, id, stage, {
        appVersion: 'test',
        includeKeyframes: false,
      });
      expect(rawOf(rebuilt)).toEqual([]);
      expect(fs.existsSync(path.join(stage, 'files', 'raw'))).toBe(false);
    } finally {
      await services.close();
      l.close();
    }
  });

  it('item 30: the imported metadata.json, which agentnet-raw exports copy, is scanned even with the kept files home', async () => {
    const second = path.join(root, 'with-metadata');
    fs.cpSync(EXAMPLE, second, { recursive: true });
    const metaFile = path.join(second, 'metadata.json');
    const meta = JSON.parse(fs.readFileSync(metaFile, 'utf8')) as Record<string, unknown>;
    fs.writeFileSync(metaFile, JSON.stringify({ ...meta, x_upload_key: STRIPE_KEY }, null, 4));
    const imported = await cli(['import', second, '--no-keyframes', '--allow-duplicate', '--json']);
    expect(imported.code, imported.stderr).toBe(0);
    const otherId = /"id":\s*"([0-9a-f-]{36})"/.exec(imported.stdout)![1]!;
    const r = await cli(['scan', otherId, '--json']);
    const raw = (JSON.parse(r.stdout) as { findings: PiiFinding[] }).findings.filter(
      (f) => f.source === 'raw-file',
    );
    // privacy.uploadRawFiles is off (the test before): only the recording row's copy is read
    expect(raw.map((f) => [f.kind, f.file])).toEqual([['secret', 'metadata.json']]);
    expect(raw[0]!.excerpt).not.toContain(STRIPE_KEY.slice(8));
    const out = path.join(root, 'export-metadata');
    const exp = await cli(['export', otherId, '--format', 'agentnet-raw', '--out', out]);
    expect(exp.code).not.toBe(0);
    expect(exp.stderr).toMatch(/PII_UNRESOLVED[\s\S]*1 secret \(raw-file\)/);
    expect(fs.existsSync(out)).toBe(false);
  });
});
