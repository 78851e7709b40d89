// How the input-hook child writes to its parent (real child, real Xvfb, xdotool injection), the
// same with either hook (uiohook-napi with CUA_INPUT_HOOK=uiohook; the X RECORD hook, Linux's
// default): pointer moves are held (HOOK_DEFERRED_FLUSH_MS; widened here with --defer-ms) and go
// out together, so a moving mouse costs both processes a few writes and reads instead of one per
// event (bench/recorder.ts); a key goes out at once and takes the held moves with it, in order;
// nothing is lost at shutdown.
import { spawn, type ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sourceLauncher } from '../../../src/infra/child-launcher';
import { monotonicNowMs } from '../../../src/recorder/clock';
import { HOOK_DEFERRED_FLUSH_MS } from '../../../src/recorder/input/hook-protocol';
import { startXvfb, until, xdotool, type XServer } from './x-server';

type Chunk = {
  atMs: number;
  lines: {
    type: string;
    t: number;
    e?: { type: number; x?: number; y?: number };
    capabilities?: string[];
  }[];
};

type Child = { proc: ChildProcess; chunks: Chunk[] };

let server: XServer;
const children: ChildProcess[] = [];

beforeAll(async () => {
  server = await startXvfb();
});

afterAll(async () => {
  children.forEach((proc) => proc.kill('SIGKILL'));
  await server.stop();
});

// Starts the child from its sources and records every stdout chunk with its arrival time.
async function startChild(
  extraArgs: string[],
  env: NodeJS.ProcessEnv = { CUA_INPUT_HOOK: 'uiohook' },
  heartbeatMs = 5000,
): Promise<Child> {
  const { file, args } = sourceLauncher().command('hook-child');
  const proc = spawn(file, [...args, '--heartbeat-ms', String(heartbeatMs), ...extraArgs], {
    env: { ...server.env, ...env },
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  children.push(proc);
  const chunks: Chunk[] = [];
  let rest = '';
  proc.stdout.setEncoding('utf8');
  proc.stdout.on('data', (data: string) => {
    const atMs = monotonicNowMs();
    const text = rest + data;
    const cut = text.lastIndexOf('\n') + 1;
    rest = text.slice(cut);
    const lines = text
      .slice(0, cut)
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as Chunk['lines'][number]);
    chunks.push({ atMs, lines });
  });
  await until(() => chunks.some((c) => c.lines.some((l) => l.type === 'hello')), 'hello');
  return { proc, chunks };
}

const eventLines = (chunks: Chunk[]): { chunk: number; line: Chunk['lines'][number] }[] =>
  chunks.flatMap((c, chunk) =>
    c.lines.filter((l) => l.type === 'event').map((line) => ({ chunk, line })),
  );

// Asks the child to shut down; every event it counted as sent must have reached us, the last at
// `lastPoint`.
async function expectShutdownDeliversAll(child: Child, lastPoint: [number, number]): Promise<void> {
  const closed = new Promise((r) => child.proc.once('close', r));
  child.proc.stdin?.end('{"id":1,"method":"shutdown"}\n');
  await closed;
  const lines = child.chunks.flatMap((c) => c.lines);
  const reply = lines.find((l) => (l as { id?: number }).id === 1) as unknown as {
    result: { sent: number };
  };
  expect(lines.filter((l) => l.type === 'event')).toHaveLength(reply.result.sent);
  const last = lines.filter((l) => l.type === 'event').at(-1);
  expect([last?.e?.x, last?.e?.y]).toEqual(lastPoint);
}

/** xdotool arguments: 40 moves about 3 ms apart along y = 200 from x = 100, in one run. */
const FORTY_MOVES = Array.from({ length: 40 }, (_, i) => [
  'mousemove',
  String(100 + i),
  '200',
  'sleep',
  '0.003',
]).flat();

const MOVED = 9;
const KEY_PRESSED = 4;
/** The deferral under test, widened from HOOK_DEFERRED_FLUSH_MS so timing cannot blur it. */
const DEFER_MS = 1500;

describe('hook child writes', () => {
  it('uses a short deferral by default', () => {
    expect(HOOK_DEFERRED_FLUSH_MS).toBeGreaterThan(0);
    expect(HOOK_DEFERRED_FLUSH_MS).toBeLessThanOrEqual(100);
  });

  it.each([
    { hook: 'uiohook-napi', env: { CUA_INPUT_HOOK: 'uiohook' }, source: 'source:uiohook' },
    { hook: 'the X RECORD hook', env: {}, source: 'source:x11-record' },
  ])(
    '$hook: holds moves for one shared write and sends keys at once, in order, losing nothing',
    async ({ env, source }) => {
      const child = await startChild(['--defer-ms', String(DEFER_MS)], env);
      const hello = child.chunks.flatMap((c) => c.lines).find((l) => l.type === 'hello');
      expect(hello?.capabilities).toContain(source);
      const first = child.chunks.length;
      await xdotool(server, ...FORTY_MOVES);
      await until(() => eventLines(child.chunks.slice(first)).length >= 40, '40 moves');
      const moveLines = eventLines(child.chunks.slice(first));
      expect(moveLines.map((l) => l.line.e?.type)).toEqual(Array(40).fill(MOVED));
      // one write for all of them, no sooner than the deferral after the first was stamped
      expect(new Set(moveLines.map((l) => l.chunk)).size).toBe(1);
      const chunk = child.chunks[first + (moveLines[0]?.chunk ?? 0)] as Chunk;
      expect(chunk.atMs - (moveLines[0]?.line.t ?? 0)).toBeGreaterThanOrEqual(DEFER_MS - 20);

      // a move then at once a key: the key goes out at once, in the same write as the held move,
      // after it
      const before = child.chunks.length;
      await xdotool(server, 'mousemove', '300', '300', 'key', 'a');
      await until(
        () => eventLines(child.chunks.slice(before)).some((l) => l.line.e?.type === KEY_PRESSED),
        'the key',
      );
      const after = eventLines(child.chunks.slice(before));
      const keyAt = after.findIndex((l) => l.line.e?.type === KEY_PRESSED);
      const moveAt = after.findIndex((l) => l.line.e?.type === MOVED);
      expect(moveAt).toBeGreaterThanOrEqual(0);
      expect(moveAt).toBeLessThan(keyAt);
      expect(after[moveAt]?.chunk).toBe(after[keyAt]?.chunk);
      const keyChunk = child.chunks[before + (after[keyAt]?.chunk ?? 0)] as Chunk;
      expect(keyChunk.atMs - (after[moveAt]?.line.t ?? 0)).toBeLessThan(DEFER_MS - 500);

      // a move still held at shutdown is written before the child exits: every event it counted
      // as sent reaches the parent
      await xdotool(server, 'mousemove', '400', '400');
      await new Promise((r) => setTimeout(r, 200));
      await expectShutdownDeliversAll(child, [400, 400]);
    },
  );
});
