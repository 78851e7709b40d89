// The windows on the screen (issue 26, item 6): parsing `xwininfo -root -tree`, and the X11
// reader on a real Xvfb + openbox desktop with xmessage windows: only the selected clients, with
// their frame (decorations included), not while iconified, and read again (on xev's events, not a
// poll) when one is iconified, restored or moved.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { monotonicNowMs } from '../../../src/recorder/clock';
import {
  parseStackTree,
  X11WindowStack,
  type StackReading,
} from '../../../src/recorder/windows/x11-window-stack';
import { startDesktop, type Desktop } from '../../helpers/desktop';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const TREE = `
xwininfo: Window id: 0x50d (the root window) (has no name)

  Root window id: 0x50d (the root window) (has no name)
  Parent window id: 0x0 (none)
     4 children:
     0x60020b "Openbox": ("" (none))  1x1+-100+-100  +-100+-100
     0x600256 (has no name): ("OPENBOX_FOCUS_CYCLE_POPUP" "OPENBOX_FOCUS_CYCLE_POPUP")  1x1+0+0  +0+0
     0x6002c2 (has no name): ()  119x93+100+100  +100+100
        1 child:
        0x400030 "Plain "quoted": x": ("xmessage" "Xmessage")  117x68+1+20  +101+120
           1 child:
           0x400031 (has no name): ()  117x68+0+0  +101+120
     0x200040 "No WM": ("xterm" "XTerm")  300x200+-5+10  +-5+10
`;

describe('parseStackTree', () => {
  it('item 34: lists each client with its top-level frame', () => {
    expect(parseStackTree(TREE)).toEqual([
      {
        windowId: '0x600256',
        topLevelId: '0x600256',
        title: null,
        app: 'OPENBOX_FOCUS_CYCLE_POPUP',
        appInstance: 'OPENBOX_FOCUS_CYCLE_POPUP',
        frame: { x: 0, y: 0, width: 1, height: 1 },
      },
      {
        windowId: '0x400030',
        topLevelId: '0x6002c2',
        title: 'Plain "quoted": x',
        app: 'Xmessage',
        appInstance: 'xmessage',
        frame: { x: 100, y: 100, width: 119, height: 93 },
      },
      {
        windowId: '0x200040',
        topLevelId: '0x200040',
        title: 'No WM',
        app: 'XTerm',
        appInstance: 'xterm',
        frame: { x: -5, y: 10, width: 300, height: 200 },
      },
    ]);
  });
});

describe('X11WindowStack (Xvfb, openbox, xmessage)', () => {
  let desktop: Desktop;
  let secret = '';

  async function xmessage(title: string, at: string): Promise<string> {
    desktop.spawn('xmessage', ['-title', title, '-geometry', at, `${title} body`]);
    for (let i = 0; i < 100; i += 1) {
      const id = (await desktop.run('xdotool', ['search', '--name', `^${title}$`]).catch(() => ''))
        .trim()
        .split('\n')[0];
      if (id) {
        return `0x${Number(id).toString(16)}`;
      }
      await sleep(50);
    }
    throw new Error(`${title} did not map`);
  }

  beforeAll(async () => {
    desktop = await startDesktop();
    secret = await xmessage('Secret Stack', '+300+200');
    await xmessage('Other Stack', '+600+200');
  }, 60_000);

  afterAll(async () => {
    await desktop?.stop();
  });

  it('item 34: reports the selected window with its frame, not while iconified, and where it moved', async () => {
    const readings: StackReading[] = [];
    const stack = new X11WindowStack({
      env: desktop.env,
      now: monotonicNowMs,
      select: (c) => c.title === 'Secret Stack',
      // no poll in the time of the test: the readings after the first come from xev's events
      pollMs: 60_000,
    });
    const until = async (test: (r: StackReading) => boolean) => {
      for (let i = 0; i < 100; i += 1) {
        const hit = readings.find(test);
        if (hit) {
          return hit;
        }
        await sleep(50);
      }
      throw new Error(`no such reading in ${JSON.stringify(readings.at(-1))}`);
    };
    stack.start((r) => readings.push(r));
    try {
      const first = await until((r) => r.windows.length > 0);
      expect(first.windows.map((w) => [w.windowId, w.title, w.app])).toEqual([
        [secret, 'Secret Stack', 'Xmessage'],
      ]);
      expect(first.startMs).toBeLessThanOrEqual(first.endMs);
      const frame = first.windows[0]!.frame;
      // the frame holds the client and the title bar above it
      const client = await desktop.run('xwininfo', ['-id', secret]);
      const clientY = Number(/Absolute upper-left Y:\s*(\d+)/.exec(client)![1]);
      expect(frame.y).toBeLessThan(clientY);
      expect(frame.height).toBeGreaterThan(Number(/Height:\s*(\d+)/.exec(client)![1]));
      // iconified: gone from the readings
      await desktop.run('xdotool', ['windowminimize', '--sync', secret]);
      const seen = readings.length;
      await until((r) => readings.indexOf(r) >= seen && r.windows.length === 0);
      // back and moved: found where it is now
      await desktop.run('xdotool', ['windowactivate', '--sync', secret]);
      await desktop.run('xdotool', ['windowmove', '--sync', secret, '50', '400']);
      const moved = await until((r) => r.windows.length === 1 && r.windows[0]!.frame.x < 100);
      expect(moved.windows[0]!.frame.y).toBeGreaterThan(frame.y);
    } finally {
      await stack.stop();
    }
    const count = readings.length;
    await sleep(700);
    expect(readings.length).toBe(count); // nothing after stop
  }, 60_000);
});
