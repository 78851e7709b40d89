// Our accessibility records → AgentNet shapes and targets (docs/agentnet-accessibility-mapping.md).
import { describe, expect, it } from 'vitest';
import {
  agentNetElementTree,
  agentNetWindowTree,
  elementTarget,
  matchElement,
  withRowRects,
  type ElementContext,
} from '../../../src/pipeline/agentnet/accessibility';

const node = (
  role: string,
  name: string,
  bounds: { x: number; y: number; width: number; height: number } | null,
  children: unknown[] = [],
) => ({ role, name, states: ['showing'], bounds, children });

const record = (path: unknown[], x = 110, y = 100, tMs = 1000): ElementContext => ({
  tMs,
  x,
  y,
  tree: { app: 'app', isSecure: false, path },
  system: 'atspi',
});

describe('AgentNet accessibility shapes', () => {
  it('converts a window tree: UIA node keys, rectangles, depths, root flags', () => {
    const tree = node('frame', 'Editor', { x: 0, y: 0, width: 800, height: 600 }, [
      node('push button', 'OK', { x: 10, y: 20, width: 30, height: 40 }),
    ]);
    expect(agentNetWindowTree(tree, 'atspi', { tS: 12.5, complete: false })).toEqual({
      Name: 'Editor',
      ControlType: 'WindowControl',
      BoundingRectangle: { left: 0, top: 0, right: 800, bottom: 600 },
      Depth: 0,
      Children: [
        {
          Name: 'OK',
          ControlType: 'ButtonControl',
          BoundingRectangle: { left: 10, top: 20, right: 40, bottom: 60 },
          Depth: 1,
          Children: [],
          x_role: 'push button',
          x_states: ['showing'],
        },
      ],
      x_role: 'frame',
      x_states: ['showing'],
      complete: false,
      switched: false,
      closed: false,
      time_stamp: 12.5,
    });
  });

  it('leaves AgentNet trees (imports) unchanged', () => {
    const uia = { Name: 'Taskbar', ControlType: 'PaneControl', Children: [] };
    expect(agentNetWindowTree(uia, 'atspi', { tS: 1, complete: true })).toBe(uia);
    expect(agentNetElementTree(uia, 'atspi')).toBe(uia);
  });

  it('writes an element record as the element with its ancestors; a failed lookup as []', () => {
    const button = node('push button', 'OK', null);
    const out = agentNetElementTree(
      { app: 'a', isSecure: false, path: [button, node('frame', 'W', null)] },
      'atspi',
    ) as Record<string, unknown>;
    expect([out.Name, out.ControlType, out.BoundingRectangle]).toEqual([
      'OK',
      'ButtonControl',
      { left: 0, top: 0, right: 0, bottom: 0 },
    ]);
    expect((out.x_ancestors as { Name: string }[]).map((a) => a.Name)).toEqual(['W']);
    expect(agentNetElementTree({ app: null, isSecure: false, path: [] }, 'atspi')).toEqual([]);
  });

  it('adds x, y, w, h to row trees', () => {
    const tree = {
      Name: 'a',
      BoundingRectangle: { left: 1, top: 2, right: 11, bottom: 22 },
      Children: [],
    };
    expect(withRowRects(tree)).toEqual({
      Name: 'a',
      BoundingRectangle: { left: 1, top: 2, right: 11, bottom: 22, x: 1, y: 2, w: 10, h: 20 },
      Children: [],
    });
  });

  it('targets the named element, else its nearest named ancestor under the press', () => {
    const frame = node('frame', 'Editor', { x: 0, y: 0, width: 1280, height: 800 });
    const button = node('push button', 'Save', { x: 100, y: 90, width: 60, height: 24 });
    const icon = node('icon', '', { x: 104, y: 94, width: 16, height: 16 });
    expect(elementTarget(record([button, frame]))).toEqual({
      control_type: 'ButtonControl',
      title: 'Save',
      mark: true,
    });
    expect(elementTarget(record([icon, button, frame]))).toMatchObject({ title: 'Save' });
    // nothing named under the press: no target
    expect(elementTarget(record([icon, node('filler', '', null)]))).toBeNull();
    // a press outside every named node's rectangle: no target
    expect(elementTarget(record([button], 10, 10))).toBeNull();
  });

  it('matches an element record to a press by time and position', () => {
    const records = [record([], 110, 100, 1000), record([], 300, 300, 1010)];
    expect(matchElement(records, { tMs: 1008, x: 110, y: 100 })).toBe(records[0]);
    expect(matchElement(records, { tMs: 1008, x: 300, y: 300 })).toBe(records[1]);
    expect(matchElement(records, { tMs: 5000, x: 110, y: 100 })).toBeNull();
  });
});
