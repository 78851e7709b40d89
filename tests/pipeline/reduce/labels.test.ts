// Step labels naming the captured element (issue 10 item 23; docs/agentnet-accessibility-mapping.md
// §5): only when element records are given, so AgentNet imports keep the type words.
import { describe, expect, it } from 'vitest';
import type { ElementContext } from '../../../src/pipeline/agentnet/accessibility';
import { reduce } from '../../../src/pipeline/reduce';
import { EventScript, TEST_CONTEXT } from './event-script';

type Bounds = { x: number; y: number; width: number; height: number };
const node = (role: string, name: string, bounds: Bounds | null) => ({
  role,
  name,
  states: [],
  bounds,
  children: [],
});
const around = (x: number, y: number): Bounds => ({ x: x - 20, y: y - 10, width: 40, height: 20 });

function recorded(
  build: (s: EventScript, press: (role: string, name: string) => EventScript) => void,
  isSecure = false,
): { labels: string[]; targets: unknown[] } {
  const s = new EventScript(1000);
  const elements: ElementContext[] = [];
  const press = (role: string, name: string): EventScript => {
    elements.push({
      tMs: s.now + 3,
      x: s.x,
      y: s.y,
      tree: { app: 'a', isSecure, path: [node(role, name, around(s.x, s.y))] },
      system: 'atspi',
    });
    return s;
  };
  build(s, press);
  const { steps } = reduce(s.events, { ...TEST_CONTEXT, elements });
  return { labels: steps.map((st) => st.label), targets: steps.map((st) => st.target) };
}

describe('labels naming the element', () => {
  it('names the element of every pointer step with its role noun', () => {
    const { labels, targets } = recorded((s, press) => {
      s.moveTo(100, 100, 3);
      press('push button', 'Save').click();
      s.wait(800).moveTo(300, 300, 3);
      press('list item', 'report.txt').click('right');
      s.wait(800).moveTo(500, 500, 3);
      press('label', '125%').click().wait(80);
      press('label', '125%').click();
      s.wait(800).moveTo(700, 500, 3);
      press('page tab', 'Network').down();
      s.moveTo(900, 520, 6).up();
    });
    expect(labels).toEqual([
      'Click on Save button',
      'Right-click on report.txt list item',
      'Double-click on 125%',
      'Drag from Network tab',
    ]);
    expect(targets[0]).toEqual({ control_type: 'ButtonControl', title: 'Save', mark: true });
  });

  it('describes typing into the text field clicked before it, never quoting a secure field', () => {
    const typed = recorded((s, press) => {
      s.moveTo(100, 100, 3);
      press('entry', 'Search').click();
      s.wait(300).type('cats').tap('enter');
    });
    expect(typed.labels).toEqual([
      'Click on Search text field',
      'Type "cats" and press enter in Search text field',
    ]);
    const secret = recorded((s, press) => {
      s.moveTo(100, 100, 3);
      press('password text', 'Password').click();
      s.wait(300).type('hunter2');
    }, true);
    expect(secret.labels[1]).toBe('Type in Password text field');
  });

  it('keeps the type words without elements, for unnamed elements and after a non-text click', () => {
    const none = reduce(new EventScript(1000).moveTo(10, 10, 3).click().events, TEST_CONTEXT);
    expect(none.steps.map((s) => [s.label, s.target])).toEqual([['click', null]]);
    const unnamed = recorded((s, press) => {
      s.moveTo(100, 100, 3);
      press('filler', '').click();
      s.wait(300).type('x');
    });
    // issue 26 item 23: typing with no text field named says what was typed, not "type"
    expect(unnamed.labels).toEqual(['click', 'Type "x"']);
  });

  it('issue 26 item 23: keys in the order pressed, each piece of text apart; hotkeys and scrolls say what they do', () => {
    const backFirst = recorded((s, press) => {
      s.moveTo(100, 100, 3);
      press('entry', 'Name').click();
      s.wait(300).tap('backspace').type('x');
    });
    expect(backFirst.labels[1]).toBe('Press backspace and type "x" in Name text field');
    const form = recorded((s, press) => {
      s.moveTo(100, 100, 3);
      press('entry', 'E-mail').click();
      s.wait(300).type('ab').tap('tab').type('cd');
    });
    expect(form.labels[1]).toBe('Type "ab", press tab and type "cd" in E-mail text field');
    const keys = recorded((s, press) => {
      s.moveTo(100, 100, 3);
      press('push button', 'OK').click();
      s.wait(400).keyDown('ctrl').tap('c').keyUp('ctrl');
      s.wait(400).wheel(0, -1).wait(20).wheel(0, -1).wait(20).wheel(0, -1);
    });
    expect(keys.labels.slice(1)).toEqual(['Press ctrl+c', 'Scroll down 3 times']);
  });
});
