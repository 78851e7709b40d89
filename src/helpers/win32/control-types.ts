// UI Automation control type ids (UIA_ButtonControlTypeId = 50000 …) and the names the Windows
// helper reports as node roles (`ButtonControl`), the names AgentNet Tool writes and
// src/pipeline/agentnet/role-map.ts maps (docs/helper-protocol.md §3).

/** Every UIA control type id, in id order, with its role name. */
export const UIA_CONTROL_TYPES: readonly (readonly [id: number, name: string])[] = [
  [50000, 'ButtonControl'],
  [50001, 'CalendarControl'],
  [50002, 'CheckBoxControl'],
  [50003, 'ComboBoxControl'],
  [50004, 'EditControl'],
  [50005, 'HyperlinkControl'],
  [50006, 'ImageControl'],
  [50007, 'ListItemControl'],
  [50008, 'ListControl'],
  [50009, 'MenuControl'],
  [50010, 'MenuBarControl'],
  [50011, 'MenuItemControl'],
  [50012, 'ProgressBarControl'],
  [50013, 'RadioButtonControl'],
  [50014, 'ScrollBarControl'],
  [50015, 'SliderControl'],
  [50016, 'SpinnerControl'],
  [50017, 'StatusBarControl'],
  [50018, 'TabControl'],
  [50019, 'TabItemControl'],
  [50020, 'TextControl'],
  [50021, 'ToolBarControl'],
  [50022, 'ToolTipControl'],
  [50023, 'TreeControl'],
  [50024, 'TreeItemControl'],
  [50025, 'CustomControl'],
  [50026, 'GroupControl'],
  [50027, 'ThumbControl'],
  [50028, 'DataGridControl'],
  [50029, 'DataItemControl'],
  [50030, 'DocumentControl'],
  [50031, 'SplitButtonControl'],
  [50032, 'WindowControl'],
  [50033, 'PaneControl'],
  [50034, 'HeaderControl'],
  [50035, 'HeaderItemControl'],
  [50036, 'TableControl'],
  [50037, 'TitleBarControl'],
  [50038, 'SeparatorControl'],
  [50039, 'SemanticZoomControl'],
  [50040, 'AppBarControl'],
];

const NAMES = new Map<number, string>(UIA_CONTROL_TYPES);

/** Role name of a control type id; an unknown id (a newer Windows) becomes `CustomControl`. */
export function controlTypeName(id: number): string {
  return NAMES.get(id) ?? 'CustomControl';
}
