// Fault tests of issue 26, items 7 and 9 (README fault rows 35 and 37). Item 7: `settings:set` (and `record
// --exclude-title`) must refuse, before anything is saved, the values that later break or harm:
// title rules no linear-time engine can run, unbounded rule lists, an upload endpoint that is
// link-local (cloud metadata) or plain http to another machine, hotkeys the recorder cannot use or
// that collide, and the server's own display as the replay display. A title rule that is
// catastrophic for a backtracking engine must not hang the recorder. Item 9 (the part outside
// src/main): a replay from the desktop app starts its driver and hotkey hook through the app's
// launcher (utility processes), as the recorder does.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  sourceLauncher,
  type ChildEntry,
  type ChildLauncher,
} from '../../src/infra/child-launcher';
import {
  compileExclusions,
  exclusionRules,
  type ExclusionMatcher,
} from '../../src/recorder/privacy/exclusion';
import { createEventHub, createServer, mediaPath, type ServerHandle } from '../../src/server';
import { createServices, type Services } from '../../src/services/create-services';
import { openLibrary } from '../../src/services/library/library';
import { runCli } from '../helpers/cli';
import { startDesktop, type Desktop } from '../helpers/desktop';
import { copyExampleLibrary } from '../helpers/example-library';
import { tempLibrary } from '../helpers/library';
import { callApi } from '../server/http-client';

// the display the server runs on (its DISPLAY): replay must never be pointed at it
const SERVER_DISPLAY = ':173';

const t = tempLibrary();
const events = createEventHub();
let services: Services;
let server: ServerHandle;

beforeAll(async () => {
  services = createServices(t.lib, {
    appVersion: '0.0.0-test',
    emit: events.emit,
    mediaUrl: mediaPath,
    log: () => undefined,
    env: { ...process.env, DISPLAY: SERVER_DISPLAY },
  });
  server = await createServer({ services, events, heartbeatMs: 1000 });
});

afterAll(async () => {
  await server.close();
  await services.close();
  t.cleanup();
});

const api = (method: string, payload: unknown) =>
  callApi(server.port, server.token, method, payload);

/** One harmful patch, the field the error must name and the code it must carry. */
type Bad = { patch: Record<string, unknown>; field: string; code: string };

const many = (n: number, prefix: string) => Array.from({ length: n }, (_, i) => `${prefix}${i}`);

const BAD: Bad[] = [
  // no linear-time engine runs a backreference or a lookaround
  {
    patch: { privacy: { excludeTitles: ['(bank)\\1'] } },
    field: 'privacy.excludeTitles[0]',
    code: 'EXCLUSION_RULE_INVALID',
  },
  {
    patch: { privacy: { excludeTitles: ['Online', '(?=Bank)B'] } },
    field: 'privacy.excludeTitles[1]',
    code: 'EXCLUSION_RULE_INVALID',
  },
  // unbounded rule lists (every title rule runs on every window title)
  {
    patch: { privacy: { excludeTitles: many(101, 'Title ') } },
    field: 'privacy.excludeTitles',
    code: 'INVALID_PAYLOAD',
  },
  {
    patch: { privacy: { excludeApps: many(101, 'app') } },
    field: 'privacy.excludeApps',
    code: 'INVALID_PAYLOAD',
  },
  // link-local (cloud metadata), by any scheme and spelling; plain http to another machine
  {
    patch: { uploadEndpoint: 'http://169.254.169.254/latest/meta-data' },
    field: 'uploadEndpoint',
    code: 'UPLOAD_CONFIG',
  },
  {
    patch: { uploadEndpoint: 'https://169.254.10.1' },
    field: 'uploadEndpoint',
    code: 'UPLOAD_CONFIG',
  },
  {
    patch: { uploadEndpoint: 'http://[::ffff:169.254.169.254]/' },
    field: 'uploadEndpoint',
    code: 'UPLOAD_CONFIG',
  },
  {
    patch: { uploadEndpoint: 'https://[fe80::1]:9000' },
    field: 'uploadEndpoint',
    code: 'UPLOAD_CONFIG',
  },
  {
    patch: { uploadEndpoint: 'http://192.168.1.20:9000' },
    field: 'uploadEndpoint',
    code: 'UPLOAD_CONFIG',
  },
  {
    patch: { uploadEndpoint: 'http://s3.example.org' },
    field: 'uploadEndpoint',
    code: 'UPLOAD_CONFIG',
  },
  // hotkeys the recorder cannot parse, that would swallow ordinary typing, or that collide
  {
    patch: { hotkeys: { startStop: 'banana', pause: 'ctrl+alt+shift+p' } },
    field: 'hotkeys.startStop',
    code: 'HOTKEY_INVALID',
  },
  {
    patch: { hotkeys: { startStop: 'ctrl+alt+shift+r', pause: 'shift+p' } },
    field: 'hotkeys.pause',
    code: 'HOTKEY_INVALID',
  },
  {
    patch: { hotkeys: { startStop: 'ctrl+alt+shift+p', pause: 'Shift+Alt+Ctrl+P' } },
    field: 'hotkeys.pause',
    code: 'HOTKEY_INVALID',
  },
  // not a display name; the server's own display, in any spelling of it
  { patch: { replayDisplay: 'localhost' }, field: 'replayDisplay', code: 'INVALID_PAYLOAD' },
  { patch: { replayDisplay: SERVER_DISPLAY }, field: 'replayDisplay', code: 'REPLAY_LIVE_DISPLAY' },
  { patch: { replayDisplay: ':173.0' }, field: 'replayDisplay', code: 'REPLAY_LIVE_DISPLAY' },
  { patch: { replayDisplay: 'unix:173' }, field: 'replayDisplay', code: 'REPLAY_LIVE_DISPLAY' },
  { patch: { replayDisplay: ':0173' }, field: 'replayDisplay', code: 'REPLAY_LIVE_DISPLAY' },
];

describe('item 35: settings:set refuses what later breaks or harms', () => {
  it('item 35: each harmful value is refused over HTTP with a 4xx coded error naming the field and a fix; nothing is saved', async () => {
    const before = await api('settings:get', {});
    expect(before.status).toBe(200);
    for (const bad of BAD) {
      const r = await api('settings:set', bad.patch);
      const what = `${JSON.stringify(bad.patch).slice(0, 120)} → ${r.status} ${JSON.stringify(r.json).slice(0, 300)}`;
      expect(r.status, what).toBeGreaterThanOrEqual(400);
      expect(r.status, what).toBeLessThan(500);
      expect(r.json.ok, what).toBe(false);
      expect(r.json.error.code, what).toBe(bad.code);
      const field = r.json.error.details?.field ?? r.json.error.details?.path;
      expect(field, what).toBe(bad.field);
      if (bad.code !== 'INVALID_PAYLOAD') {
        expect(r.json.error.fix, what).toMatch(/\w/);
      }
      const after = await api('settings:get', {});
      expect(after.json, what).toEqual(before.json);
    }
  });

  it('item 35: the values beside them are kept (loopback http, https elsewhere, distinct chords, another display)', async () => {
    const ok = [
      { uploadEndpoint: 'http://127.0.0.1:9000' },
      { uploadEndpoint: 'http://localhost:9000' },
      { uploadEndpoint: 'https://s3.example.org' },
      { hotkeys: { startStop: 'ctrl+alt+shift+f9', pause: 'ctrl+alt+shift+f10' } },
      { replayDisplay: ':99' },
      { replayDisplay: '' },
      { privacy: { excludeTitles: ['^(a+)+$', '\\bOnline Banking\\b', 'Mail — (Inbox|Drafts)'] } },
      { privacy: { excludeTitles: many(100, 'Title '), excludeApps: many(100, 'app') } },
    ];
    for (const patch of ok) {
      const r = await api('settings:set', patch);
      expect(r.status, `${JSON.stringify(patch).slice(0, 120)} → ${JSON.stringify(r.json)}`).toBe(
        200,
      );
    }
  });
});

describe('item 35: title rules run in linear time', () => {
  /** Time of one exclusion check of `title` (ms). */
  function timeCheck(matcher: ExclusionMatcher, title: string): number {
    const started = performance.now();
    matcher.isExcluded({ title, app: 'xterm' });
    return performance.now() - started;
  }

  it('item 35: a title rule catastrophic for a backtracking engine (^(a+)+$) cannot hang the recorder', () => {
    // the matcher the recorder builds from the settings and the record options
    const matcher = compileExclusions(
      exclusionRules({
        settings: { excludeTitles: ['^(a+)+$'], useDefaultExclusions: true },
        excludeTitles: ['(x+x+)+y', '.*a.*b.*c.*d.*e'],
      }),
    );
    // 30 'a's and a '!': about 2^30 backtracking steps (tens of seconds) for a backtracking engine
    expect(timeCheck(matcher, `${'a'.repeat(27)}!`)).toBeLessThan(500);
    expect(timeCheck(matcher, `${'a'.repeat(100_000)}!`)).toBeLessThan(2000);
    expect(timeCheck(matcher, 'x'.repeat(20_000))).toBeLessThan(2000);
    // and the rules still match what they say, case-insensitively
    expect(matcher.isExcluded({ title: 'AAAA', app: 'xterm' })).toMatchObject({ excluded: true });
    expect(matcher.isExcluded({ title: 'An Incognito window', app: null })).toMatchObject({
      excluded: true,
    });
    expect(matcher.isExcluded({ title: 'aaab', app: null })).toEqual({ excluded: false });
  });

  it('item 35: record --exclude-title refuses a rule no linear-time engine runs, and too many rules', async () => {
    const lib = tempLibrary();
    // no display: a rule let through fails later on (never records anything)
    const env = { DISPLAY: '', WAYLAND_DISPLAY: '' };
    const record = ['record', '--task', 't', '--duration', '1', '--library', lib.dir];
    try {
      const r = await runCli([...record, '--exclude-title', '(bank)\\1'], env);
      expect(r.code, r.stderr).not.toBe(0);
      expect(r.stderr).toContain('[EXCLUSION_RULE_INVALID]');
      expect(r.stderr).toContain('--exclude-title');
      expect(r.stderr).toContain('invalid escape sequence');
      expect(r.stderr).not.toContain('(?i)');
      expect(r.stderr).toMatch(/fix: /);
      const tooMany = await runCli(
        [...record, ...many(101, 'T').flatMap((title) => ['--exclude-title', title])],
        env,
      );
      expect(tooMany.code, tooMany.stderr).not.toBe(0);
      expect(tooMany.stderr).toContain('[EXCLUSION_RULE_INVALID]');
      expect(tooMany.stderr).toMatch(/at most 100/);
    } finally {
      lib.cleanup();
    }
  });
});

describe('item 37: a replay in the desktop app starts its children through the host', () => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'cua-replay-launcher-'));
  let desktop: Desktop | null = null;

  afterAll(async () => {
    await desktop?.stop();
    fs.rmSync(root, { recursive: true, force: true });
  });

  it("item 37: the replay driver and its stop-hotkey hook start through the host's launcher (the app's utility processes), not by spawning the host's executable", async () => {
    desktop = await startDesktop({ shouldWaitForWindowManager: false });
    const libDir = path.join(root, 'lib');
    const id = await copyExampleLibrary(libDir);
    const lib = openLibrary(libDir);
    // a host launcher that forks (as Electron's utility processes do), here the real entries
    // from the sources, and says which entries it started
    const source = sourceLauncher();
    const forked: ChildEntry[] = [];
    const launcher: ChildLauncher = {
      kind: 'bundled',
      command: () => {
        throw new Error('this host forks its children: nothing may spawn the host itself');
      },
      fork: (entry, args, env) => {
        forked.push(entry);
        const { file, args: before } = source.command(entry);
        return spawn(file, [...before, ...args], { env, stdio: ['pipe', 'pipe', 'pipe'] });
      },
    };
    const s = createServices(lib, {
      appVersion: '0.0.0-test',
      log: () => undefined,
      launcher,
      // the app's own display is not the replay's
      env: { ...desktop.env, DISPLAY: '' },
    });
    try {
      expect((await s.dispatch('settings:set', { replayDisplay: desktop.display })).ok).toBe(true);
      const started = await s.dispatch('replay:start', { id, speed: 4 });
      expect(started.ok, JSON.stringify(started)).toBe(true);
      let status: { running: boolean; error: unknown } = { running: true, error: null };
      for (let i = 0; i < 600 && status.running; i++) {
        if (forked.includes('replay-driver') && forked.includes('hook-child')) {
          await s.dispatch('replay:cancel', { id });
        }
        await new Promise((r) => setTimeout(r, 100));
        const r = await s.dispatch('replay:status', { id });
        status = (r.ok ? r.value : { running: false, error: r.error }) as typeof status;
      }
      expect(status.running).toBe(false);
      expect(forked.sort()).toEqual(['hook-child', 'replay-driver']);
    } finally {
      await s.close();
      lib.close();
    }
  }, 120_000);
});
