// The AT-SPI adapter against real components: Xvfb + D-Bus + at-spi2-core + openbox + GTK 3.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AxFocusEvent } from '../../../../src/axtree/model';
import { flattenNodes } from '../../../../src/axtree/model';
import { connectAtspi } from '../../../../src/axtree/platform/linux/atspi';
import { AtspiAdapter } from '../../../../src/axtree/platform/linux/atspi-adapter';
import { isAppError } from '../../../../src/shared/errors';
import type { GtkForm } from '../../../fixtures/apps/gtk-form';
import { launchGtkForm } from '../../../fixtures/apps/gtk-form';
import type { Desktop } from '../../../helpers/desktop';
import { startDesktop } from '../../../helpers/desktop';

const now = (): number => Number(process.hrtime.bigint()) / 1e6;

let desktop: Desktop;
let form: GtkForm;
let adapter: AtspiAdapter;
const focusEvents: AxFocusEvent[] = [];

async function until<T>(
  probe: () => Promise<T>,
  ok: (v: T) => boolean,
  timeoutMs = 5000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let value = await probe();
  while (!ok(value) && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 50));
    value = await probe();
  }
  return value;
}

async function isEnabled(): Promise<string> {
  return await desktop.run('dbus-send', [
    '--session',
    '--print-reply',
    '--dest=org.a11y.Bus',
    '/org/a11y/bus',
    'org.freedesktop.DBus.Properties.Get',
    'string:org.a11y.Status',
    'string:IsEnabled',
  ]);
}

async function setIsEnabled(value: boolean): Promise<void> {
  await desktop.run('dbus-send', [
    '--session',
    '--print-reply',
    '--dest=org.a11y.Bus',
    '/org/a11y/bus',
    'org.freedesktop.DBus.Properties.Set',
    'string:org.a11y.Status',
    'string:IsEnabled',
    `variant:boolean:${value}`,
  ]);
}

beforeAll(async () => {
  desktop = await startDesktop();
  form = await launchGtkForm(desktop);
  adapter = new AtspiAdapter({ now, env: desktop.env });
  await adapter.start();
  adapter.onFocusChanged((e) => focusEvents.push(e));
  // the form registers with the AT-SPI registry asynchronously after mapping
  await until(
    () => adapter.elementAt(form.ready.widgets.button.cx, form.ready.widgets.button.cy),
    (r) => r !== null,
  );
});

afterAll(async () => {
  await adapter?.stop();
  await form?.close();
  await desktop?.stop();
});

describe('AtspiAdapter.elementAt', () => {
  it('finds the button under its centre with its ancestors up to the application', async () => {
    const { cx, cy } = form.ready.widgets.button;
    const t0 = now();
    const record = await adapter.elementAt(cx, cy);
    expect(record).not.toBeNull();
    expect(record?.tMs).toBeGreaterThanOrEqual(t0 - 1);
    expect(record?.tMs).toBeLessThanOrEqual(now());
    expect(record?.path.map((n) => [n.role, n.name])).toEqual([
      ['push button', 'Press Me'],
      ['filler', ''],
      ['frame', 'CUA Test Form'],
      ['application', 'gtk-form.py'],
    ]);
    expect(record).toMatchObject({ x: cx, y: cy, app: 'gtk-form.py', isSecure: false });
    const [button, , frame, app] = record?.path ?? [];
    expect(button?.bounds).toEqual({
      x: form.ready.widgets.button.x,
      y: form.ready.widgets.button.y,
      width: form.ready.widgets.button.width,
      height: form.ready.widgets.button.height,
    });
    expect(button?.states).toEqual(expect.arrayContaining(['enabled', 'focusable', 'showing']));
    expect(frame?.bounds).toEqual(form.ready.window);
    expect(frame?.states).toContain('active');
    expect(app?.bounds).toBeNull(); // applications have no Component
  });

  it('marks the password entry as secure', async () => {
    const { cx, cy } = form.ready.widgets.password;
    const record = await adapter.elementAt(cx, cy);
    expect(record?.path[0]).toMatchObject({ role: 'password text', name: 'Password' });
    expect(record?.isSecure).toBe(true);
  });

  it('finds a list row inside the scrolled list', async () => {
    const list = form.ready.widgets.list;
    const record = await adapter.elementAt(list.x + 20, list.y + 10);
    expect(record?.path.map((n) => [n.role, n.name])).toEqual([
      ['label', 'Item 1'],
      ['list item', ''],
      ['list box', 'Items'],
      ['viewport', ''],
      ['scroll pane', ''],
      ['filler', ''],
      ['frame', 'CUA Test Form'],
      ['application', 'gtk-form.py'],
    ]);
  });

  it('returns null over the bare desktop', async () => {
    await expect(adapter.elementAt(1200, 780)).resolves.toBeNull();
  });
});

describe('AtspiAdapter.snapshotFocusedWindow', () => {
  it('returns the form tree within budgets', async () => {
    const snapshot = await adapter.snapshotFocusedWindow({ maxNodes: 2000, maxMs: 5000 });
    expect(snapshot.truncated).toBe(false);
    expect(snapshot.note).toBeUndefined();
    expect(snapshot.app).toBe('gtk-form.py');
    expect(snapshot.root).toMatchObject({ role: 'frame', name: 'CUA Test Form' });
    const nodes = flattenNodes(snapshot.root);
    expect(snapshot.nodeCount).toBe(nodes.length);
    expect(snapshot.durationMs).toBeGreaterThan(0);
    const byRole = (role: string): string[] =>
      nodes.filter((n) => n.role === role).map((n) => n.name);
    expect(byRole('push button')).toContain('Press Me');
    expect(byRole('password text')).toEqual(['Password']);
    expect(byRole('text')).toContain('Name');
    // 30 list rows, each a list item with a label
    expect(byRole('label').filter((n) => /^Item \d+$/.test(n))).toHaveLength(30);
    // no node lost its geometry to INT_MIN: either real bounds or null
    for (const node of nodes) {
      if (node.bounds) {
        expect(node.bounds.x).toBeGreaterThan(-100000);
      }
    }
  });

  it('truncates at a tiny node budget and says so', async () => {
    const snapshot = await adapter.snapshotFocusedWindow({ maxNodes: 5 });
    expect(snapshot.nodeCount).toBe(5);
    expect(flattenNodes(snapshot.root)).toHaveLength(5);
    expect(snapshot.truncated).toBe(true);
    expect(snapshot.note).toMatch(/^node budget 5 reached/);
    // the cut node reports how many children it really has
    expect(flattenNodes(snapshot.root).some((n) => n.childCount !== undefined)).toBe(true);
  });

  it('caps children per node', async () => {
    const snapshot = await adapter.snapshotFocusedWindow({ maxChildrenPerNode: 3 });
    expect(snapshot.truncated).toBe(true);
    expect(snapshot.note).toMatch(/child budget 3 per node reached/);
    const nodes = flattenNodes(snapshot.root);
    expect(Math.max(...nodes.map((n) => n.children.length))).toBe(3);
    // the form's box holds 6 widgets: 3 kept, the real count recorded
    const box = nodes.find((n) => n.role === 'filler');
    expect(box?.children.map((n) => n.role)).toEqual(['push button', 'label', 'text']);
    expect(box?.childCount).toBe(6);
  });

  it('stops at the time budget', async () => {
    const snapshot = await adapter.snapshotFocusedWindow({ maxMs: 1 });
    expect(snapshot.truncated).toBe(true);
    expect(snapshot.note).toMatch(/time budget 1 ms reached/);
    expect(snapshot.nodeCount).toBeLessThan(10);
  });
});

describe('D-Bus calls per query', () => {
  // before (the commit that added this test): 5 calls per node (GetChildren on every node, leaves
  // included, and Name by Properties.Get): 363 calls for the 72-node form; elementAt of the
  // button 22 calls (Name and Parent each by Properties.Get)
  it('reads each node in four calls and never asks a leaf for its children', async () => {
    const before = adapter.callCounts();
    const snapshot = await adapter.snapshotFocusedWindow({ maxNodes: 2000, maxMs: 5000 });
    const after = adapter.callCounts();
    const delta = (member: string): number => (after[member] ?? 0) - (before[member] ?? 0);
    expect(snapshot.truncated).toBe(false);
    const nodes = flattenNodes(snapshot.root);
    const containers = nodes.filter((n) => n.children.length > 0).length;
    // the window list: GetChildren of the desktop root and of the one application, the
    // application's Name (Get), the window's four calls; then one GetAll per node below it and
    // GetChildren only on containers
    expect(delta('GetChildren')).toBe(2 + containers);
    expect(delta('GetAll')).toBe(nodes.length);
    expect(delta('Get')).toBe(1);
    const total = Object.keys(after).reduce((n, m) => n + delta(m), 0);
    // 326 for the form's 72 nodes (363 before)
    expect(total).toBe(4 * nodes.length + containers + 3);
    expect(containers).toBeLessThan(nodes.length / 2);
  });

  it('hit-tests with name and parent in one call', async () => {
    const { cx, cy } = form.ready.widgets.button;
    const before = adapter.callCounts();
    const record = await adapter.elementAt(cx, cy);
    const after = adapter.callCounts();
    const delta = (member: string): number => (after[member] ?? 0) - (before[member] ?? 0);
    expect(record?.path[0]?.name).toBe('Press Me');
    expect(delta('Get')).toBe(1); // the application's name only
    const total = Object.keys(after).reduce((n, m) => n + delta(m), 0);
    expect(total).toBeLessThanOrEqual(20); // 22 before
  });
});

describe('AtspiAdapter.onContentChanged', () => {
  it('reports a name change of the focused window, and no text edits', async () => {
    const changes: { isFocusedApp: boolean }[] = [];
    const off = adapter.onContentChanged((c) => changes.push(c));
    try {
      await adapter.snapshotFocusedWindow(); // the focused application is now the form
      const { entry } = form.ready.widgets;
      await desktop.run('xdotool', ['mousemove', String(entry.cx), String(entry.cy), 'click', '1']);
      await new Promise((r) => setTimeout(r, 400));
      changes.length = 0;
      await desktop.run('xdotool', ['type', '--delay', '30', 'abc']);
      await new Promise((r) => setTimeout(r, 400));
      expect(changes).toEqual([]);
      await form.setTitle('Renamed Form');
      await until(
        () => Promise.resolve(changes.length),
        (n) => n > 0,
      );
      expect(changes[0]?.isFocusedApp).toBe(true);
    } finally {
      off();
      await form.setTitle('CUA Test Form');
    }
  });
});

describe('AtspiAdapter.focusedIsSecure', () => {
  it('follows clicks into the password and the normal entry', async () => {
    const { password, entry } = form.ready.widgets;
    await desktop.run('xdotool', [
      'mousemove',
      String(password.cx),
      String(password.cy),
      'click',
      '1',
    ]);
    await expect(
      until(
        () => adapter.focusedIsSecure(),
        (v) => v,
      ),
    ).resolves.toBe(true);
    await desktop.run('xdotool', ['mousemove', String(entry.cx), String(entry.cy), 'click', '1']);
    await expect(
      until(
        () => adapter.focusedIsSecure(),
        (v) => !v,
      ),
    ).resolves.toBe(false);
    // focus events arrived for both, marked accordingly
    const seen = focusEvents.map((e) => [e.role, e.isSecure]);
    expect(seen).toContainEqual(['password text', true]);
    expect(seen).toContainEqual(['text', false]);
  });

  it('answers by querying the tree when it has not seen a focus event', async () => {
    const { password } = form.ready.widgets;
    await desktop.run('xdotool', [
      'mousemove',
      String(password.cx),
      String(password.cy),
      'click',
      '1',
    ]);
    const fresh = new AtspiAdapter({ now, env: desktop.env, shouldTrackFocus: false });
    try {
      const info = await fresh.start();
      expect(info.capabilities).not.toContain('focusEvents');
      await expect(
        until(
          () => fresh.focusedIsSecure(),
          (v) => v,
        ),
      ).resolves.toBe(true);
    } finally {
      await fresh.stop();
    }
  });
});

describe('a hung application', () => {
  it('does not block queries beyond their limits (SIGSTOPped GTK app)', async () => {
    const quick = new AtspiAdapter({ now, env: desktop.env, callTimeoutMs: 200 });
    await quick.start();
    const { cx, cy } = form.ready.widgets.button;
    process.kill(form.ready.pid, 'SIGSTOP');
    try {
      let t0 = now();
      // the hung application is skipped: nothing answers for that point
      await expect(quick.elementAt(cx, cy)).resolves.toBeNull();
      expect(now() - t0).toBeLessThan(1000);
      t0 = now();
      const snapshot = await quick.snapshotFocusedWindow({ maxMs: 300 });
      expect(snapshot.root).toBeNull();
      expect(now() - t0).toBeLessThan(1000);
      t0 = now();
      const secure = await quick.focusedIsSecure().catch((e: unknown) => e);
      expect(secure === false || isAppError(secure, 'ACCESSIBILITY_TIMEOUT')).toBe(true);
      expect(now() - t0).toBeLessThan(2000);
    } finally {
      process.kill(form.ready.pid, 'SIGCONT');
      await quick.stop();
    }
    // and the application answers again afterwards
    const record = await until(
      () => adapter.elementAt(cx, cy),
      (r) => r !== null,
    );
    expect(record?.path[0]?.name).toBe('Press Me');
  });
});

describe('accessibility switch and availability', () => {
  it('enables org.a11y.Status.IsEnabled while running and restores it on stop', async () => {
    await setIsEnabled(false);
    expect(await isEnabled()).toContain('boolean false');
    const bus = await connectAtspi({ env: desktop.env });
    expect(await isEnabled()).toContain('boolean true');
    expect(bus.address).toMatch(new RegExp(`^unix:path=${desktop.runDir}/xdg/at-spi/bus`));
    await bus.close();
    expect(await isEnabled()).toContain('boolean false');
    await setIsEnabled(true);
  });

  it('reports ACCESSIBILITY_UNAVAILABLE without a session bus address', async () => {
    const env = { ...desktop.env };
    delete env.DBUS_SESSION_BUS_ADDRESS;
    const lonely = new AtspiAdapter({ now, env });
    const error: unknown = await lonely.start().catch((e: unknown) => e);
    expect(isAppError(error, 'ACCESSIBILITY_UNAVAILABLE')).toBe(true);
    expect((error as Error).message).toMatch(/DBUS_SESSION_BUS_ADDRESS is not set/);
  });

  it('reports ACCESSIBILITY_UNAVAILABLE when the session bus is unreachable', async () => {
    const env = { ...desktop.env, DBUS_SESSION_BUS_ADDRESS: `unix:path=${desktop.runDir}/no-bus` };
    const error: unknown = await new AtspiAdapter({ now, env, connectTimeoutMs: 500 })
      .start()
      .catch((e: unknown) => e);
    expect(isAppError(error, 'ACCESSIBILITY_UNAVAILABLE')).toBe(true);
    expect((error as Error).message).toMatch(/could not connect to the D-Bus session bus/);
  });

  it('refuses calls after stop with a clear message', async () => {
    const short = new AtspiAdapter({ now, env: desktop.env });
    await short.start();
    await short.stop();
    await expect(short.elementAt(1, 1)).rejects.toThrow(/used after stop/);
  });
});
