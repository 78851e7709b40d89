// Which element a click landed on, from the lookup after the click and the one made while the
// pointer rested before it (issue 10 item 6).
import { describe, expect, it } from 'vitest';
import type { AxElementRecord } from '../../src/axtree/model';
import { pickClickedElement } from '../../src/recorder/session';

function record(window: string, leaf: string, tMs: number): AxElementRecord {
  return {
    tMs,
    x: 10,
    y: 20,
    app: `${window} app`,
    isSecure: false,
    path: [
      { role: 'push button', name: leaf },
      { role: 'frame', name: window },
      { role: 'application', name: `${window} app` },
    ],
  } as unknown as AxElementRecord;
}

describe('pickClickedElement', () => {
  const hover = record('Dialog', 'Close Me', 100);
  const behind = record('Main', 'filler', 205);

  it('takes the lookup after the click when nothing was looked up before', () => {
    expect(pickClickedElement(behind, null, 'Dialog', 200)).toBe(behind);
  });

  it('takes the hover element, stamped with the press, when the click closed its window', () => {
    expect(pickClickedElement(behind, hover, 'Dialog', 200)).toEqual({ ...hover, tMs: 200 });
    expect(pickClickedElement(null, hover, 'Dialog', 200)).toEqual({ ...hover, tMs: 200 });
  });

  it('takes the fresh lookup when it is in the same window as the hover one', () => {
    const fresh = record('Dialog', 'Close Me (pressed)', 205);
    expect(pickClickedElement(fresh, hover, 'Dialog', 200)).toBe(fresh);
  });

  it('takes the fresh lookup when a window that was active at the press appeared under the rest', () => {
    const popup = record('Popup', 'OK', 205);
    expect(pickClickedElement(popup, hover, 'Popup', 200)).toBe(popup);
  });
});
