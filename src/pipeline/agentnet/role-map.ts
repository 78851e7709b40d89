// The one table from our accessibility roles to AgentNet's `control_type` (the Windows UI
// Automation ControlType name that AgentNet Tool writes, e.g. `ButtonControl`), plus the noun a
// step description uses for each control type, for AT-SPI, macOS AX and Windows UIA role names
// (UIA names are AgentNet's own). docs/agentnet-accessibility-mapping.md explains every row.
// docs/agentnet-raw-format.md §8, §10 (`target.control_type`); docs/action-reduction.md §A.6
import { strictAssert } from '../../shared/assert';

/** Accessibility APIs whose role names the table knows. */
export type RoleSystem = 'atspi' | 'ax' | 'uia';

/** The UIA ControlType names AgentNet writes (`<Type>Control`), one entry per UIA type. */
export const CONTROL_TYPES = [
  'AppBarControl',
  'ButtonControl',
  'CalendarControl',
  'CheckBoxControl',
  'ComboBoxControl',
  'CustomControl',
  'DataGridControl',
  'DataItemControl',
  'DocumentControl',
  'EditControl',
  'GroupControl',
  'HeaderControl',
  'HeaderItemControl',
  'HyperlinkControl',
  'ImageControl',
  'ListControl',
  'ListItemControl',
  'MenuBarControl',
  'MenuControl',
  'MenuItemControl',
  'PaneControl',
  'ProgressBarControl',
  'RadioButtonControl',
  'ScrollBarControl',
  'SemanticZoomControl',
  'SeparatorControl',
  'SliderControl',
  'SpinnerControl',
  'SplitButtonControl',
  'StatusBarControl',
  'TabControl',
  'TabItemControl',
  'TableControl',
  'TextControl',
  'ThumbControl',
  'TitleBarControl',
  'ToolBarControl',
  'ToolTipControl',
  'TreeControl',
  'TreeItemControl',
  'WindowControl',
] as const;
/** One of {@link CONTROL_TYPES}. */
export type ControlType = (typeof CONTROL_TYPES)[number];

/** What a role without an entry maps to (UIA's type for "anything else"). */
export const FALLBACK_CONTROL_TYPE: ControlType = 'CustomControl';

// AT-SPI role names as `Atspi.Accessible.GetRoleName` returns them (at-spi2-core atspi-constants.h,
// ATSPI_ROLE_*), grouped by the UIA type they correspond to. A role missing here maps to
// CustomControl. Keep each group alphabetical.
const ATSPI_GROUPS: Readonly<Record<ControlType, readonly string[]>> = {
  AppBarControl: [],
  ButtonControl: ['button', 'push button', 'push button menu', 'toggle button'],
  CalendarControl: ['calendar', 'date editor'],
  CheckBoxControl: ['check box', 'switch'],
  ComboBoxControl: ['combo box'],
  CustomControl: ['canvas', 'drawing area', 'embedded', 'extended', 'redundant object', 'unknown'],
  DataGridControl: ['tree table'],
  DataItemControl: ['table cell'],
  DocumentControl: [
    'document email',
    'document frame',
    'document presentation',
    'document spreadsheet',
    'document text',
    'document web',
    'terminal',
  ],
  EditControl: ['autocomplete', 'editbar', 'entry', 'password text', 'text'],
  GroupControl: [
    'article',
    'block quote',
    'description list',
    'footer',
    'form',
    'grouping',
    'landmark',
    'page',
    'panel',
    'section',
  ],
  HeaderControl: ['header'],
  HeaderItemControl: ['column header', 'row header', 'table column header', 'table row header'],
  HyperlinkControl: ['link'],
  ImageControl: ['icon', 'image', 'image map'],
  ListControl: ['list', 'list box'],
  ListItemControl: ['description term', 'description value', 'list item'],
  MenuBarControl: ['menu bar'],
  MenuControl: ['menu', 'popup menu'],
  MenuItemControl: ['check menu item', 'menu item', 'radio menu item', 'tearoff menu item'],
  PaneControl: [
    'application',
    'desktop frame',
    'directory pane',
    'filler',
    'glass pane',
    'layered pane',
    'option pane',
    'root pane',
    'scroll pane',
    'split pane',
    'viewport',
  ],
  ProgressBarControl: ['level bar', 'progress bar'],
  RadioButtonControl: ['radio button'],
  ScrollBarControl: ['scroll bar'],
  SemanticZoomControl: [],
  SeparatorControl: ['separator'],
  SliderControl: ['dial', 'slider'],
  SpinnerControl: ['spin button'],
  SplitButtonControl: [],
  StatusBarControl: ['info bar', 'status bar'],
  TabControl: ['page tab list'],
  TabItemControl: ['page tab'],
  TableControl: ['table'],
  TextControl: [
    'accelerator label',
    'caption',
    'footnote',
    'heading',
    'label',
    'paragraph',
    'static',
  ],
  ThumbControl: [],
  TitleBarControl: [],
  ToolBarControl: ['tool bar'],
  ToolTipControl: ['tool tip'],
  TreeControl: ['tree'],
  TreeItemControl: ['tree item'],
  WindowControl: [
    'alert',
    'color chooser',
    'dialog',
    'file chooser',
    'font chooser',
    'frame',
    'internal frame',
    'notification',
    'window',
  ],
};

// macOS AX role names (`kAX…Role` in HIServices AXRoleConstants.h, plus `AXSecureTextField`, the
// subrole the helper reports as the role of password fields: docs/helper-protocol.md §6) grouped
// the same way. Roles no group lists (AXRuler, AXColumn, AXUnknown, …) map to CustomControl.
// Keep each group alphabetical.
const AX_GROUPS: Readonly<Partial<Record<ControlType, readonly string[]>>> = {
  ButtonControl: ['AXButton', 'AXColorWell', 'AXDisclosureTriangle', 'AXMenuButton'],
  CalendarControl: ['AXDateField'],
  CheckBoxControl: ['AXCheckBox'],
  ComboBoxControl: ['AXComboBox', 'AXPopUpButton'],
  DataGridControl: ['AXGrid'],
  DataItemControl: ['AXCell'],
  DocumentControl: ['AXWebArea'],
  EditControl: ['AXSecureTextField', 'AXTextArea', 'AXTextField', 'AXTimeField'],
  GroupControl: ['AXGroup', 'AXRadioGroup'],
  HyperlinkControl: ['AXLink'],
  ImageControl: ['AXImage'],
  ListControl: ['AXList'],
  ListItemControl: ['AXRow'],
  MenuBarControl: ['AXMenuBar'],
  MenuControl: ['AXMenu'],
  MenuItemControl: ['AXMenuBarItem', 'AXMenuItem'],
  PaneControl: ['AXApplication', 'AXDrawer', 'AXLayoutArea', 'AXScrollArea', 'AXSplitGroup'],
  ProgressBarControl: [
    'AXBusyIndicator',
    'AXLevelIndicator',
    'AXProgressIndicator',
    'AXRelevanceIndicator',
  ],
  RadioButtonControl: ['AXRadioButton'],
  ScrollBarControl: ['AXScrollBar'],
  SeparatorControl: ['AXSplitter'],
  SliderControl: ['AXSlider'],
  SpinnerControl: ['AXIncrementor'],
  TabControl: ['AXTabGroup'],
  TableControl: ['AXTable'],
  TextControl: ['AXHeading', 'AXStaticText'],
  ThumbControl: ['AXHandle', 'AXValueIndicator'],
  ToolBarControl: ['AXToolbar'],
  ToolTipControl: ['AXHelpTag'],
  TreeControl: ['AXBrowser', 'AXOutline'],
  WindowControl: ['AXPopover', 'AXSheet', 'AXWindow'],
};

// Keys are lower case: role names are compared case-insensitively.
function invert(
  groups: Readonly<Partial<Record<ControlType, readonly string[]>>>,
): Map<string, ControlType> {
  const out = new Map<string, ControlType>();
  for (const type of CONTROL_TYPES) {
    for (const role of groups[type] ?? []) {
      const key = role.toLowerCase();
      strictAssert(!out.has(key), `role "${role}" is listed under two control types`);
      out.set(key, type);
    }
  }
  return out;
}

const ATSPI_TO_CONTROL_TYPE = invert(ATSPI_GROUPS);
const AX_TO_CONTROL_TYPE = invert(AX_GROUPS);

// UIA ControlType names are AgentNet's own, with or without the `Control` suffix.
const UIA_NAMES = new Map<string, ControlType>(
  CONTROL_TYPES.flatMap((type): [string, ControlType][] => [
    [type.toLowerCase(), type],
    [type.slice(0, -'Control'.length).toLowerCase(), type],
  ]),
);

/** AgentNet's `control_type` for a platform role (unknown roles: {@link FALLBACK_CONTROL_TYPE}). */
export function controlTypeOf(role: string, system: RoleSystem): ControlType {
  const key = role.trim().toLowerCase();
  switch (system) {
    case 'atspi':
      return ATSPI_TO_CONTROL_TYPE.get(key) ?? FALLBACK_CONTROL_TYPE;
    case 'uia':
      return UIA_NAMES.get(key) ?? FALLBACK_CONTROL_TYPE;
    case 'ax':
      return AX_TO_CONTROL_TYPE.get(key) ?? FALLBACK_CONTROL_TYPE;
  }
}

/** The AT-SPI roles listed for each control type (for the mapping doc and its test). */
export function atspiRolesOf(type: ControlType): readonly string[] {
  return ATSPI_GROUPS[type];
}

/** The macOS AX roles listed for each control type (for the mapping doc and its test). */
export function axRolesOf(type: ControlType): readonly string[] {
  return AX_GROUPS[type] ?? [];
}

// The noun a step label puts after the element's name ("Click on Save button"); '' where the
// name alone reads better (text labels, containers) — AgentNet annotators write "Click on 125%".
const NOUNS: Readonly<Record<ControlType, string>> = {
  AppBarControl: 'app bar',
  ButtonControl: 'button',
  CalendarControl: 'calendar',
  CheckBoxControl: 'check box',
  ComboBoxControl: 'drop-down list',
  CustomControl: '',
  DataGridControl: 'table',
  DataItemControl: 'cell',
  DocumentControl: 'document',
  EditControl: 'text field',
  GroupControl: '',
  HeaderControl: 'header',
  HeaderItemControl: 'column header',
  HyperlinkControl: 'link',
  ImageControl: 'image',
  ListControl: 'list',
  ListItemControl: 'list item',
  MenuBarControl: 'menu bar',
  MenuControl: 'menu',
  MenuItemControl: 'menu item',
  PaneControl: '',
  ProgressBarControl: 'progress bar',
  RadioButtonControl: 'radio button',
  ScrollBarControl: 'scroll bar',
  SemanticZoomControl: '',
  SeparatorControl: '',
  SliderControl: 'slider',
  SpinnerControl: 'spin box',
  SplitButtonControl: 'button',
  StatusBarControl: 'status bar',
  TabControl: 'tab list',
  TabItemControl: 'tab',
  TableControl: 'table',
  TextControl: '',
  ThumbControl: '',
  TitleBarControl: 'title bar',
  ToolBarControl: 'toolbar',
  ToolTipControl: 'tooltip',
  TreeControl: 'tree',
  TreeItemControl: 'tree item',
  WindowControl: 'window',
};

/** The noun a description uses for a control type ('' = the name alone). */
export function controlNounOf(type: ControlType): string {
  return NOUNS[type];
}

/** Control types that take typed text (a keyboard run is described as typing into them). */
export const TEXT_ENTRY_CONTROL_TYPES: ReadonlySet<ControlType> = new Set([
  'EditControl',
  'DocumentControl',
  'ComboBoxControl',
]);
