// The role table (docs/agentnet-accessibility-mapping.md §2) as a data-driven test.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  atspiRolesOf,
  axRolesOf,
  CONTROL_TYPES,
  controlNounOf,
  controlTypeOf,
  FALLBACK_CONTROL_TYPE,
} from '../../../src/pipeline/agentnet/role-map';
import { REPO_ROOT } from '../../helpers/paths';

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

// [macOS AX role, AgentNet control_type, description noun]
const AX_TABLE: readonly [string, string, string][] = [
  ['AXButton', 'ButtonControl', 'button'],
  ['AXTextField', 'EditControl', 'text field'],
  ['AXSecureTextField', 'EditControl', 'text field'],
  ['AXTextArea', 'EditControl', 'text field'],
  ['AXStaticText', 'TextControl', ''],
  ['AXWindow', 'WindowControl', 'window'],
  ['AXSheet', 'WindowControl', 'window'],
  ['AXMenuItem', 'MenuItemControl', 'menu item'],
  ['AXMenuBarItem', 'MenuItemControl', 'menu item'],
  ['AXMenuBar', 'MenuBarControl', 'menu bar'],
  ['AXMenu', 'MenuControl', 'menu'],
  ['AXCheckBox', 'CheckBoxControl', 'check box'],
  ['AXRadioButton', 'RadioButtonControl', 'radio button'],
  ['AXPopUpButton', 'ComboBoxControl', 'drop-down list'],
  ['AXComboBox', 'ComboBoxControl', 'drop-down list'],
  ['AXLink', 'HyperlinkControl', 'link'],
  ['AXImage', 'ImageControl', 'image'],
  ['AXGroup', 'GroupControl', ''],
  ['AXList', 'ListControl', 'list'],
  ['AXTable', 'TableControl', 'table'],
  ['AXRow', 'ListItemControl', 'list item'],
  ['AXCell', 'DataItemControl', 'cell'],
  ['AXScrollArea', 'PaneControl', ''],
  ['AXToolbar', 'ToolBarControl', 'toolbar'],
  ['AXTabGroup', 'TabControl', 'tab list'],
  ['AXSlider', 'SliderControl', 'slider'],
  ['AXApplication', 'PaneControl', ''],
  ['AXWebArea', 'DocumentControl', 'document'],
  ['AXOutline', 'TreeControl', 'tree'],
  ['AXIncrementor', 'SpinnerControl', 'spin box'],
  ['AXProgressIndicator', 'ProgressBarControl', 'progress bar'],
  // not in the table: the fallback
  ['AXUnknown', 'CustomControl', ''],
  ['AXRuler', 'CustomControl', ''],
];

// The macOS table of docs/agentnet-accessibility-mapping.md §3: `| \`Type\` | \`AXRole\`, … |`.
function docAxRows(): Map<string, string[]> {
  const doc = readFileSync(path.join(REPO_ROOT, 'docs/agentnet-accessibility-mapping.md'), 'utf8');
  const section = doc.slice(doc.indexOf('**macOS AX roles**'), doc.indexOf('## 4.'));
  const rows = new Map<string, string[]>();
  for (const match of section.matchAll(/^\| `(\w+Control)` +\| (.*?) +\|$/gm)) {
    rows.set(
      match[1] as string,
      [...(match[2] as string).matchAll(/`(AX\w+)`/g)].map((m) => m[1] as string),
    );
  }
  return rows;
}

describe('role map', () => {
  it.each(ATSPI_TABLE)('AT-SPI %s → %s (%s)', (role, controlType, noun) => {
    const mapped = controlTypeOf(role, 'atspi');
    expect(mapped).toBe(controlType);
    expect(controlNounOf(mapped)).toBe(noun);
  });

  it.each(AX_TABLE)('macOS AX %s → %s (%s)', (role, controlType, noun) => {
    const mapped = controlTypeOf(role, 'ax');
    expect(mapped).toBe(controlType);
    expect(controlNounOf(mapped)).toBe(noun);
  });

  it('maps Windows UIA names to themselves, AX and AT-SPI names only in their own system', () => {
    for (const type of CONTROL_TYPES) {
      expect(controlTypeOf(type, 'uia')).toBe(type);
    }
    expect(controlTypeOf('Button', 'uia')).toBe('ButtonControl');
    expect(controlTypeOf('Edit', 'uia')).toBe('EditControl');
    expect(controlTypeOf('AXButton', 'uia')).toBe(FALLBACK_CONTROL_TYPE);
    expect(controlTypeOf('ButtonControl', 'ax')).toBe(FALLBACK_CONTROL_TYPE);
    expect(controlTypeOf('push button', 'ax')).toBe(FALLBACK_CONTROL_TYPE);
    expect(controlTypeOf(' axbutton ', 'ax')).toBe('ButtonControl');
  });

  it('lists the same AX roles as the mapping document, each under one control type', () => {
    const doc = docAxRows();
    const seen = new Set<string>();
    for (const type of CONTROL_TYPES) {
      const roles = axRolesOf(type);
      expect(doc.get(type) ?? [], type).toEqual(roles);
      for (const role of roles) {
        expect(seen.has(role), role).toBe(false);
        seen.add(role);
        expect(controlTypeOf(role, 'ax')).toBe(type);
      }
    }
    expect(seen.size).toBeGreaterThan(50);
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
