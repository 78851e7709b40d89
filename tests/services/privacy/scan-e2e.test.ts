// The PII scan end to end (issue 14): real Xvfb + D-Bus + AT-SPI + openbox, the GTK form driven
// by xdotool, the real recorder (the services' record session), real ffmpeg and SQLite; the scan
// through the contract (`privacy:scan`).
// Text typed into the form with an e-mail address, a phone number, a card number and an AWS
// access key id is found at the write step holding it, a window title with an address is found,
// and a recording of ordinary text, numbers and coordinates has no finding at all.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServices, type Services } from '../../../src/services/create-services';
import type { StepView } from '../../../src/services/recordings';
import type { PiiFinding } from '../../../src/shared/domain';
import { launchGtkForm, GTK_FORM_TITLE, type GtkForm } from '../../fixtures/apps/gtk-form';
import { startDesktop, type Desktop } from '../../helpers/desktop';
import { tempLibrary } from '../../helpers/library';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const FIRST = 'mail alice.smith@example.com call +1 415 555 0132';
const SECOND = 'card 4111 1111 1111 1111 key AKIAIOSFODNN7EXAMPLE';
const TITLE = 'Inbox - bob.jones@example.org';
const ORDINARY = 'order 48213 at 10:30 moved to 640,480 version 2.4.1 size 512 KB';

describe('scan on a real recording (Xvfb + AT-SPI + GTK form)', { timeout: 60_000 }, () => {
  let desktop: Desktop;
  let form: GtkForm;
  const t = tempLibrary();
  let services: Services;

  const x = (...args: string[]) => desktop.run('xdotool', args);
  const click = async (at: { cx: number; cy: number }) => {
    await x('mousemove', String(at.cx), String(at.cy));
    await sleep(120);
    await x('click', '1');
    await sleep(300);
  };
  const type = async (text: string) => {
    await x('type', '--delay', '15', text);
    await sleep(200);
  };

  /** One session (no keyframes: nothing here looks at them): start, `act`, stop, reduce; the
   * shown steps and the scan's findings. */
  const session = async (
    task: string,
    act: () => Promise<void>,
  ): Promise<{ steps: StepView[]; findings: PiiFinding[] }> => {
    const stop = new AbortController();
    let onStarted = (): void => undefined;
    const started = new Promise<void>((resolve) => (onStarted = resolve));
    const run = services.record({
      task,
      fps: 10,
      signal: stop.signal,
      onStarted: () => onStarted(),
      keepKeyframes: () => false,
    });
    await Promise.race([started, run]);
    await sleep(300);
    await act();
    await sleep(300);
    stop.abort();
    const { id } = await run;
    await services.reduceRecording(id);
    const { steps } = services.showRecording(id);
    const r = await services.dispatch('privacy:scan', { id });
    if (!r.ok) {
      throw new Error(`privacy:scan: [${r.error.code}] ${r.error.message}`);
    }
    return { steps, findings: (r.value as { findings: PiiFinding[] }).findings };
  };

  beforeAll(async () => {
    desktop = await startDesktop();
    form = await launchGtkForm(desktop);
    services = createServices(t.lib, {
      appVersion: 'test',
      env: desktop.env,
      log: () => undefined,
    });
  }, 30_000);

  afterAll(async () => {
    await services?.close();
    await form?.close();
    await desktop?.stop();
    t.cleanup();
  });

  it('finds each typed item at its write step, and the address in the window title', async () => {
    const w = form.ready.widgets;
    const { steps, findings } = await session('Fill in the contact form', async () => {
      await click(w.entry);
      await type(FIRST);
      await form.setTitle(TITLE);
      await click(w.button);
      await click(w.entry);
      await type(SECOND);
    });
    const writeHolding = (text: string) => {
      const step = steps.find((s) => s.type === 'write' && s.code.includes(text));
      expect(step, steps.map((s) => s.code).join('\n')).toBeDefined();
      return step!;
    };
    const typed = findings.filter((f) => f.source === 'typed');
    const expected: [PiiFinding['kind'], StepView][] = [
      ['email', writeHolding('alice.smith@example.com')],
      ['phone', writeHolding('+1 415 555 0132')],
      ['card', writeHolding('4111 1111 1111 1111')],
      ['secret', writeHolding('AKIAIOSFODNN7EXAMPLE')],
    ];
    for (const [kind, step] of expected) {
      const found = typed.filter((f) => f.kind === kind);
      expect(found, JSON.stringify(findings, null, 1)).toHaveLength(1);
      expect(found[0]!.stepIndex).toBe(step.index);
      expect(found[0]!.tMs).toBeGreaterThanOrEqual(step.startMs);
      expect(found[0]!.tMs).toBeLessThanOrEqual(step.endMs);
    }
    // two write steps: the first holds the address and the phone, the second the card and key
    expect(expected[0]![1].index).toBe(expected[1]![1].index);
    expect(expected[2]![1].index).toBe(expected[3]![1].index);
    expect(expected[2]![1].index).toBeGreaterThan(expected[0]![1].index);

    const titles = findings.filter((f) => f.source === 'window-title');
    expect(titles.map((f) => f.kind)).toEqual(['email']);
    expect(titles[0]!.excerpt).toBe('Inbox - bo*****************rg');
    for (const f of findings) {
      expect(f.excerpt).not.toMatch(/alice\.smith@|bob\.jones@|4111 1111 1111|AKIAIOSFODNN7/);
    }
  });

  it('finds nothing in a recording of ordinary text, numbers and coordinates', async () => {
    const w = form.ready.widgets;
    // the first session's title and entry text are gone before this one starts
    await form.setTitle(GTK_FORM_TITLE);
    await click(w.entry);
    await x('key', 'ctrl+a', 'BackSpace');
    const { steps, findings } = await session('Type an order note', async () => {
      await click(w.entry);
      await type(ORDINARY);
      await click(w.button);
    });
    expect(steps.map((s) => s.code)).toContain(`pyautogui.write(message='${ORDINARY}')`);
    expect(findings).toEqual([]);
  });
});
