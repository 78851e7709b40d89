// The X RECORD hook (src/recorder/input/x11/) against uiohook-napi, both real, on one Xvfb: two
// hook children listen at once while XTest plays a script (fixtures/x11-input-script.py: every
// keycode with Num Lock off and on, chords, buttons 1–3 and 8–10, a triple click, the four wheel
// directions, a drag, and the clicks again with a left-handed pointer map). The two event streams
// must be identical field for field (key VC codes, modifier flags, buttons, click counts, wheel
// fields, coordinates), times within a few ms (uiohook takes the time of the server's batch, the
// X RECORD hook each event's own).
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sourceLauncher } from '../../../src/infra/child-launcher';
import type { HookInputEvent } from '../../../src/recorder/input/hook-protocol';
import { startXvfb, type XServer } from './x-server';

let server: XServer;
const children: ChildProcess[] = [];

beforeAll(async () => {
  server = await startXvfb();
});

afterAll(async () => {
  children.forEach((proc) => proc.kill('SIGKILL'));
  await server.stop();
});

type Listener = { proc: ChildProcess; events: HookInputEvent[]; hello: Promise<string[]> };

function listen(hook: 'uiohook' | 'x11'): Listener {
  const { file, args } = sourceLauncher().command('hook-child');
  const proc = spawn(file, [...args, '--heartbeat-ms', '5000'], {
    env: { ...server.env, ...(hook === 'uiohook' ? { CUA_INPUT_HOOK: 'uiohook' } : {}) },
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  children.push(proc);
  const events: HookInputEvent[] = [];
  let rest = '';
  let onHello: (capabilities: string[]) => void = () => undefined;
  const hello = new Promise<string[]>((resolve) => (onHello = resolve));
  proc.stdout.setEncoding('utf8');
  proc.stdout.on('data', (data: string) => {
    const text = rest + data;
    const cut = text.lastIndexOf('\n') + 1;
    rest = text.slice(cut);
    for (const line of text.slice(0, cut).split('\n').filter(Boolean)) {
      const parsed = JSON.parse(line) as {
        type?: string;
        e?: HookInputEvent;
        capabilities?: string[];
      };
      if (parsed.type === 'event' && parsed.e) {
        events.push(parsed.e);
      } else if (parsed.type === 'hello') {
        onHello(parsed.capabilities ?? []);
      }
    }
  });
  return { proc, events, hello };
}

async function stop(listener: Listener): Promise<void> {
  const closed = new Promise((r) => listener.proc.once('close', r));
  listener.proc.stdin!.end('{"id":1,"method":"shutdown"}\n');
  await closed;
}

describe('X RECORD hook parity with uiohook-napi', () => {
  it('reports the same events as uiohook-napi for a script of keys, buttons, wheel and moves', async () => {
    const reference = listen('uiohook');
    const subject = listen('x11');
    expect(await reference.hello).toContain('source:uiohook');
    expect(await subject.hello).toContain('source:x11-record');
    const script = spawn(
      '/usr/bin/python3',
      [path.join(__dirname, 'fixtures', 'x11-input-script.py')],
      { env: server.env, stdio: ['ignore', 'pipe', 'inherit'] },
    );
    let output = '';
    script.stdout.on('data', (d: Buffer) => (output += d.toString()));
    const code = await new Promise((r) => script.once('close', r));
    expect(code).toBe(0);
    expect(output).toContain('done');
    await new Promise((r) => setTimeout(r, 500));
    await Promise.all([stop(reference), stop(subject)]);

    const withoutTime = (events: HookInputEvent[]): Omit<HookInputEvent, 'time'>[] =>
      events.map(({ time: _time, ...rest }) => rest);
    // the script's shape: two passes of keys, chords, two passes of clicks
    expect(reference.events.length).toBeGreaterThan(1000);
    expect(withoutTime(subject.events)).toEqual(withoutTime(reference.events));
    // the X RECORD hook keeps the server's time; uiohook-napi's lags it a little, more under
    // load (7 ms seen in a clean-clone CI run)
    const skew = subject.events.map((e, i) => Math.abs(e.time - reference.events[i]!.time));
    expect(Math.max(...skew)).toBeLessThanOrEqual(20);

    // the script reached what it is meant to cover
    const keycodes = new Set(
      subject.events.flatMap((e) => (e.type === 4 ? [(e as { keycode: number }).keycode] : [])),
    );
    expect(keycodes.has(0xee47)).toBe(true); // numpad 7 with Num Lock off
    expect(keycodes.has(0x0047)).toBe(true); // numpad 7 with Num Lock on
    const buttons = new Set(
      subject.events.flatMap((e) => (e.type === 7 ? [(e as { button: number }).button] : [])),
    );
    expect([...buttons].sort()).toEqual([0, 1, 2, 3, 4, 5]);
    expect(subject.events.some((e) => e.type === 7 && (e as { clicks: number }).clicks === 3)).toBe(
      true,
    );
    expect(subject.events.some((e) => e.type === 4 && e.ctrlKey && e.altKey && e.metaKey)).toBe(
      true,
    );
    expect(subject.events.filter((e) => e.type === 11)).toHaveLength(8);
  });
});
