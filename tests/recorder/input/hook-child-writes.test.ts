// How the input-hook child writes to its parent (real child, real Xvfb, xdotool injection), the
// same with either hook (uiohook-napi with CUA_INPUT_HOOK=uiohook; the X RECORD hook, Linux's
// default): pointer moves are held (HOOK_DEFERRED_FLUSH_MS; widened here with --defer-ms) and go
// out together, so a moving mouse costs both processes a few writes and reads instead of one per
// event (bench/recorder.ts); a key goes out at once and takes the held moves with it, in order;
// nothing is lost at shutdown. A flood is written in slices of HOOK_DEFERRED_MAX_LINES without
// waiting out the deferral, and the heartbeat rides with the deferral's own write.
import { spawn, type ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sourceLauncher } from '../../../src/infra/child-launcher';
import { monotonicNowMs } from '../../../src/recorder/clock';
import {
  HOOK_DEFERRED_FLUSH_MS,
  HOOK_DEFERRED_MAX_LINES,
} from '../../../src/recorder/input/hook-protocol';
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

/** xdotool arguments: about 1.5 s of steady motion along `y`, x = 100…174, a move every 20 ms. */
function steadyMoves(y: number): string[] {
  return Array.from({ length: 75 }, (_, i) => [
    'mousemove',
    String(100 + i),
    String(y),
    'sleep',
    '0.02',
  ]).flat();
}

const MOVED = 9;
const KEY_PRESSED = 4;
/** The deferral under test, widened from HOOK_DEFERRED_FLUSH_MS so timing cannot blur it. */
const DEFER_MS = 1500;

describe('hook child writes', () => {
  it('uses a short deferral by default', () => {
    // the hover rest (session.ts) and the crash window (a killed child takes what it holds)
    // assume no more than this
    expect(HOOK_DEFERRED_FLUSH_MS).toBeGreaterThan(0);
    expect(HOOK_DEFERRED_FLUSH_MS).toBeLessThanOrEqual(200);
  });

  it('writes a flood in slices without waiting out the deferral, and loses none of it', async () => {
    const child = await startChild(['--defer-ms', '60000'], {});
    const first = child.chunks.length;
    const count = 2 * HOOK_DEFERRED_MAX_LINES + 40;
    // about 1,000 moves a second (a gaming mouse's rate): unpaced, a loaded machine's Xvfb can
    // drop synthetic motion before any hook sees it (platform-linux.md §3a)
    const moves = Array.from({ length: count }, (_, i) => [
      'mousemove',
      String(10 + (i % 600)),
      String(10 + Math.floor(i / 600)),
      'sleep',
      '0.001',
    ]).flat();
    await xdotool(server, ...moves);
    // two full slices long before the minute the deferral would hold them
    const arrived = (): number => eventLines(child.chunks.slice(first)).length;
    await until(
      () => arrived() >= 2 * HOOK_DEFERRED_MAX_LINES,
      () => `two slices of the flood (${count} moves sent, ${arrived()} arrived)`,
    );
    const lastPoint: [number, number] = [
      10 + ((count - 1) % 600),
      10 + Math.floor((count - 1) / 600),
    ];
    await expectShutdownDeliversAll(child, lastPoint);
    expect(eventLines(child.chunks.slice(first))).toHaveLength(count);
  });

  it('sends the heartbeat with the deferral write while the pointer moves', async () => {
    const child = await startChild(['--defer-ms', '200'], {}, 300);
    const first = child.chunks.length;
    await xdotool(server, ...steadyMoves(300));
    const chunks = child.chunks.slice(first);
    // for each heartbeat written with moves: how much older it is than the newest move beside it
    const riding = chunks.flatMap((c) => {
      const newestMoveT = Math.max(...c.lines.filter((l) => l.type === 'event').map((l) => l.t));
      return Number.isFinite(newestMoveT)
        ? c.lines.filter((l) => l.type === 'heartbeat').map((l) => newestMoveT - l.t)
        : [];
    });
    // about 1.5 s of motion at a heartbeat every 300–500 ms
    expect(riding.length).toBeGreaterThanOrEqual(2);
    // stamped when that write was made, after the moves it carries, not by a timer of its own up
    // to 200 ms before it (a move every 20 ms would then be newer). Compared with the write's
    // own stamps, not with when it reached us, which a loaded machine delays.
    riding.forEach((olderMs) => expect(olderMs).toBeLessThan(5));
    // no rest lines unless asked for
    await new Promise((r) => setTimeout(r, 400));
    expect(child.chunks.flatMap((c) => c.lines).filter((l) => l.type === 'rest')).toEqual([]);
    await expectShutdownDeliversAll(child, [174, 300]);
  });

  it.each([
    { hook: 'uiohook-napi', env: { CUA_INPUT_HOOK: 'uiohook' } },
    { hook: 'the X RECORD hook', env: {} },
  ])('$hook: reports one rest once the pointer stops, none while it moves', async ({ env }) => {
    const restMs = 240;
    const child = await startChild(['--defer-ms', '200', '--rest-ms', String(restMs)], env);
    const first = child.chunks.length;
    // 1.5 s of steady motion, a move every 20 ms, then the pointer stops
    await xdotool(server, ...steadyMoves(400));
    await until(
      () => child.chunks.slice(first).some((c) => c.lines.some((l) => l.type === 'rest')),
      'the rest line',
    );
    await new Promise((r) => setTimeout(r, 2 * restMs));
    const lines = child.chunks.slice(first).flatMap((c) => c.lines);
    const rests = lines.filter((l) => l.type === 'rest');
    expect(rests).toHaveLength(1);
    // after every move, and no sooner than the rest after the last one
    const restAt = lines.indexOf(rests[0]!);
    const movesSeen = lines.filter((l) => l.type === 'event' && l.e?.type === MOVED);
    expect(movesSeen.at(-1)?.e?.x).toBe(174);
    expect(lines.indexOf(movesSeen.at(-1)!)).toBeLessThan(restAt);
    expect(rests[0]!.t - movesSeen.at(-1)!.t).toBeGreaterThanOrEqual(restMs - 1);
    await expectShutdownDeliversAll(child, [174, 400]);
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
