import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { once } from 'node:events';
import { afterAll, describe, expect, it } from 'vitest';
import { Message, sessionBus } from 'dbus-next';
import { netSocketAddress } from '../../../../src/axtree/platform/linux/dbus-address';

describe('netSocketAddress', () => {
  it('turns path and abstract Unix addresses into node:net sockets, keeping other keys', () => {
    expect(netSocketAddress('unix:path=/run/user/0/bus')).toBe('unix:socket=/run/user/0/bus');
    expect(netSocketAddress('unix:abstract=/tmp/dbus-AbC,guid=123')).toBe(
      'unix:socket=\u0000/tmp/dbus-AbC,guid=123',
    );
    expect(netSocketAddress('unix:path=/tmp/a%2cb,guid=9;tcp:host=localhost,port=1')).toBe(
      'unix:socket=/tmp/a,b,guid=9;tcp:host=localhost,port=1',
    );
    expect(netSocketAddress('tcp:host=127.0.0.1,port=55')).toBe('tcp:host=127.0.0.1,port=55');
  });
});

describe('dbus-next over an abstract socket', () => {
  const daemons: ReturnType<typeof spawn>[] = [];
  afterAll(() => daemons.forEach((daemon) => daemon.kill('SIGTERM')));

  it('talks to a dbus-daemon on an abstract address without loading usocket', async () => {
    const abstract = `/tmp/cua-dbus-address-test-${process.pid}-${Date.now()}`;
    const daemon = spawn(
      'dbus-daemon',
      ['--session', '--nofork', '--print-address=1', `--address=unix:abstract=${abstract}`],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    daemons.push(daemon);
    const [chunk] = (await once(daemon.stdout, 'data')) as [Buffer];
    const address = chunk.toString().trim();
    expect(address).toContain('unix:abstract=');

    const bus = sessionBus({ busAddress: netSocketAddress(address) });
    bus.on('error', () => undefined);
    try {
      const reply = await bus.call(
        new Message({
          destination: 'org.freedesktop.DBus',
          path: '/org/freedesktop/DBus',
          interface: 'org.freedesktop.DBus',
          member: 'ListNames',
        }),
      );
      expect(reply?.body[0]).toContain('org.freedesktop.DBus');
    } finally {
      bus.disconnect();
    }
    const cache = createRequire(import.meta.url).cache;
    expect(Object.keys(cache).filter((file) => file.includes('/usocket/'))).toEqual([]);
  });
});
