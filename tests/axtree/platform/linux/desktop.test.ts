// The headless desktop the AT-SPI and window tests run on (tests/helpers/desktop.ts,
// tests/setup/desktop-up.sh): isolated per run, and torn down completely.
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { deadParts, startDesktop } from '../../../helpers/desktop';

const NAMES = ['xvfb', 'dbus', 'atspi', 'openbox'];

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    return !/^\d+ \(.*\) Z/s.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}

describe('startDesktop', () => {
  it('runs two isolated desktops side by side and tears both down', async () => {
    const [a, b] = await Promise.all([startDesktop(), startDesktop()]);
    try {
      expect(a.display).not.toBe(b.display);
      for (const d of [a, b]) {
        expect(d.env.DISPLAY).toBe(d.display);
        expect(d.env.DBUS_SESSION_BUS_ADDRESS).toBe(`unix:path=${d.runDir}/bus`);
        expect(d.env.XDG_RUNTIME_DIR).toBe(`${d.runDir}/xdg`);
        // each desktop has its own a11y bus inside its run dir (not the shared ~/.cache one)
        const reply = await d.run('dbus-send', [
          '--session',
          '--print-reply',
          '--dest=org.a11y.Bus',
          '/org/a11y/bus',
          'org.a11y.Bus.GetAddress',
        ]);
        expect(reply).toContain(`unix:path=${d.runDir}/xdg/at-spi/bus_${d.displayNumber}`);
        expect(await d.run('xdpyinfo', [])).toContain('RECORD');
      }
    } finally {
      const pids = [a, b].flatMap((d) =>
        NAMES.map((n) => Number(readFileSync(path.join(d.runDir, `${n}.pid`), 'utf8'))),
      );
      // named, so a failure says which part died
      expect(await deadParts(a.runDir)).toEqual([]);
      expect(await deadParts(b.runDir)).toEqual([]);
      expect(pids.every(isRunning)).toBe(true);
      const child = a.spawn('sleep', ['60']);
      await Promise.all([a.stop(), b.stop()]);
      expect(pids.filter(isRunning)).toEqual([]);
      expect(child.pid !== undefined && isRunning(child.pid)).toBe(false);
      expect(existsSync(a.runDir) || existsSync(b.runDir)).toBe(false);
      await a.stop(); // idempotent
    }
  });
});
