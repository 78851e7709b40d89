// The role table (docs/agentnet-accessibility-mapping.md §2) as a data-driven test.
import { describe, expect, it } from 'vitest';
import {
  atspiRolesOf,
  CONTROL_TYPES,
  controlNounOf,
  controlTypeOf,
  FALLBACK_CONTROL_TYPE,
} from '../../../src/pipeline/agentnet/role-map';

// [AT-SPI role, AgentNet control_type, description noun]
const ATSPI_TABLE: readonly [string, string, string][] = [
  ['push button', 'ButtonControl', 'button'],
  ['toggle button', 'ButtonControl', 'button'],
  ['check box', 'CheckBoxControl', 'check box'],
  ['radio button', 'RadioButtonControl', 'radio button'],
  ['combo box', 'ComboBoxControl', 'drop-down list'],
  ['entry', 'EditControl', 'text field'],
  ['text', 'EditControl', 'text field'],
  ['password text', 'EditControl', 'text field'],
  ['spin button', 'SpinnerControl', 'spin box'],
  ['label', 'TextControl', ''],
  ['heading', 'TextControl', ''],
  ['link', 'HyperlinkControl', 'link'],
  ['menu bar', 'MenuBarControl', 'menu bar'],
  ['menu', 'MenuControl', 'menu'],
  ['menu item', 'MenuItemControl', 'menu item'],
  ['check menu item', 'MenuItemControl', 'menu item'],
  ['list', 'ListControl', 'list'],
  ['list item', 'ListItemControl', 'list item'],
  ['page tab list', 'TabControl', 'tab list'],
  ['page tab', 'TabItemControl', 'tab'],
  ['table', 'TableControl', 'table'],
  ['table cell', 'DataItemControl', 'cell'],
  ['column header', 'HeaderItemControl', 'column header'],
  ['tree', 'TreeControl', 'tree'],
  ['tree item', 'TreeItemControl', 'tree item'],
  ['tree table', 'DataGridControl', 'table'],
  ['tool bar', 'ToolBarControl', 'toolbar'],
  ['status bar', 'StatusBarControl', 'status bar'],
  ['scroll bar', 'ScrollBarControl', 'scroll bar'],
  ['slider', 'SliderControl', 'slider'],
  ['progress bar', 'ProgressBarControl', 'progress bar'],
  ['image', 'ImageControl', 'image'],
  ['icon', 'ImageControl', 'image'],
  ['tool tip', 'ToolTipControl', 'tooltip'],
  ['separator', 'SeparatorControl', ''],
  ['frame', 'WindowControl', 'window'],
  ['dialog', 'WindowControl', 'window'],
  ['alert', 'WindowControl', 'window'],
  ['window', 'WindowControl', 'window'],
  ['panel', 'GroupControl', ''],
  ['section', 'GroupControl', ''],
  ['filler', 'PaneControl', ''],
  ['scroll pane', 'PaneControl', ''],
  ['application', 'PaneControl', ''],
  ['document web', 'DocumentControl', 'document'],
  ['terminal', 'DocumentControl', 'document'],
  ['calendar', 'CalendarControl', 'calendar'],
  ['canvas', 'CustomControl', ''],
  ['unknown', 'CustomControl', ''],
  // not in the table: the fallback
  ['some future role', 'CustomControl', ''],
];

describe('role map', () => {
  it.each(ATSPI_TABLE)('AT-SPI %s → %s (%s)', (role, controlType, noun) => {
    const mapped = controlTypeOf(role, 'atspi');
    expect(mapped).toBe(controlType);
    expect(controlNounOf(mapped)).toBe(noun);
  });

  it('ignores case and surrounding space in role names', () => {
    expect(controlTypeOf('  Push Button ', 'atspi')).toBe('ButtonControl');
  });

  it('takes UIA names with or without the Control suffix', () => {
    expect(controlTypeOf('ButtonControl', 'uia')).toBe('ButtonControl');
    expect(controlTypeOf('ListItem', 'uia')).toBe('ListItemControl');
    expect(controlTypeOf('Nonsense', 'uia')).toBe(FALLBACK_CONTROL_TYPE);
  });

  it('lists every AT-SPI role under exactly one control type, and every type has a noun', () => {
    const seen = new Map<string, string>();
    for (const type of CONTROL_TYPES) {
      expect(typeof controlNounOf(type)).toBe('string');
      for (const role of atspiRolesOf(type)) {
        expect(seen.get(role), role).toBeUndefined();
        seen.set(role, type);
        expect(controlTypeOf(role, 'atspi')).toBe(type);
      }
    }
    expect(seen.size).toBeGreaterThan(90);
  });
});
