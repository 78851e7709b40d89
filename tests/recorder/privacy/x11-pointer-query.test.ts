// The window under the pointer over one X connection against the X tools it replaces, on a real
// desktop (Xvfb + openbox): the GTK form (UTF-8 title, _NET_WM_PID) and three xmessage windows
// (titles with a backslash and with a quote, one behind another), the pointer moved by xdotool
// over each client, their frames' title bars and borders, the overlap, the desktop (where the
// X tools name the first client in the root's tree) and a spot outside every frame. For every
// spot both lookups must give the same answer, field for field; some spots must name a client
// (the form with its pid), so the comparison cannot pass on two nulls alone. Then the lookup
// keeps answering after its connection closed when idle, and falls back to the X tools when no
// connection opens.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  x11PointerWindow,
  type PointedWindow,
} from '../../../src/recorder/privacy/x11-pointer-window';
import { launchGtkForm, type GtkForm } from '../../fixtures/apps/gtk-form';
import { startDesktop, type Desktop } from '../../helpers/desktop';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const FORM_TITLE = 'Formulaire — ünïcode ✓';

let desktop: Desktop;
let form: GtkForm;

// Opens an xmessage and waits until the window manager has framed it.
async function xmessage(title: string, at: string): Promise<void> {
  desktop.spawn('xmessage', ['-name', 'note', '-title', title, '-geometry', at, `${title} body`]);
  for (let i = 0; i < 100; i += 1) {
    const ids = await desktop.run('xdotool', ['search', '--class', 'Xmessage']).catch(() => '');
    const frames = await desktop.run('xwininfo', ['-root', '-tree']).catch(() => '');
    if (ids.trim() && frames.includes(`"${title}"`)) {
      await sleep(200);
      return;
    }
    await sleep(50);
  }
  throw new Error(`xmessage ${title} did not map`);
}

beforeAll(async () => {
  desktop = await startDesktop();
  form = await launchGtkForm(desktop, { title: FORM_TITLE });
  await xmessage('Back\\slash note', '+600+100');
  await xmessage('Say "hi" note', '+600+300');
  await xmessage('Overlap note', '+640+330');
});

afterAll(async () => {
  await form?.close();
  await desktop?.stop();
});

describe('the window under the pointer over one X connection (Xvfb, openbox)', () => {
  it('answers as xdotool, xwininfo and xprop do, at every spot', async () => {
    const viaTools = x11PointerWindow({ env: desktop.env, isProcessOnly: true, timeoutMs: 5000 });
    const viaConnection = x11PointerWindow({ env: desktop.env, timeoutMs: 5000 });
    const { window, client, widgets } = form.ready;
    const spots: [string, number, number][] = [
      ['form button', widgets.button.cx, widgets.button.cy],
      ['form list', widgets.list.cx, widgets.list.cy],
      ['form title bar', window.x + 40, window.y + 8],
      ['form left border', window.x, client.y + 50],
      ['form bottom edge', client.x + 30, window.y + window.height - 2],
      ['backslash note', 620, 140],
      ['backslash note title bar', 630, 108],
      ['quote note', 620, 345],
      ['overlap note over quote note', 690, 380],
      ['desktop', 1000, 700],
      ['top-left corner', 0, 0],
    ];
    const answers: Record<
      string,
      { tools: PointedWindow | null; connection: PointedWindow | null }
    > = {};
    for (const [name, x, y] of spots) {
      await desktop.run('xdotool', ['mousemove', '--sync', String(x), String(y)]);
      answers[name] = { tools: await viaTools(), connection: await viaConnection() };
    }
    // the same answers, except a title with a quote: a line the tools' output cannot be read
    // from (they name no window), read as it is over the connection
    for (const [name, { tools, connection }] of Object.entries(answers)) {
      if (name !== 'quote note') {
        expect(connection, name).toEqual(tools);
      }
    }
    // the comparison names real clients, not only nulls
    expect(answers['form button']?.connection).toEqual({
      windowId: form.ready.xid,
      title: FORM_TITLE,
      app: 'Gtk-form.py',
      appInstance: 'gtk-form.py',
      bounds: client,
      pid: form.ready.pid,
    });
    expect(answers['form title bar']?.connection?.windowId).toBe(form.ready.xid);
    expect(answers['backslash note']?.connection).toMatchObject({
      title: 'Back\\slash note',
      app: 'Xmessage',
      appInstance: 'note',
    });
    expect(answers['overlap note over quote note']?.connection?.title).toBe('Overlap note');
    expect(answers['quote note']?.tools).toBeNull();
    expect(answers['quote note']?.connection).toMatchObject({
      title: 'Say "hi" note',
      app: 'Xmessage',
      appInstance: 'note',
    });
    // the bare desktop: no window under the pointer (the tools named the first client of the
    // whole tree, the form's group leader, so a rule excluding the form dropped desktop clicks)
    expect(answers.desktop).toEqual({ tools: null, connection: null });
    expect(answers['top-left corner']).toEqual({ tools: null, connection: null });
  });

  it('opens a new connection after closing the idle one, and uses the tools without one', async () => {
    const { widgets } = form.ready;
    await desktop.run('xdotool', [
      'mousemove',
      '--sync',
      String(widgets.entry.cx),
      String(widgets.entry.cy),
    ]);
    const lookup = x11PointerWindow({ env: desktop.env, idleCloseMs: 50 });
    const first = await lookup();
    await sleep(200); // closed meanwhile
    expect(await lookup()).toEqual(first);
    expect(first?.windowId).toBe(form.ready.xid);

    // no X connection can be opened (a display nothing listens on): the X tools are asked, and
    // fail as they do today: no window, or COMMAND_NOT_FOUND without xdotool
    const unreachable = { ...desktop.env, DISPLAY: ':4999' };
    expect(await x11PointerWindow({ env: unreachable })()).toBeNull();
    await expect(
      x11PointerWindow({ env: unreachable, xdotoolPath: '/nonexistent/xdotool' })(),
    ).rejects.toMatchObject({ code: 'COMMAND_NOT_FOUND' });
  });
});
