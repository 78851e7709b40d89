// koffi layouts of the Win32 structs the Windows helper passes (x64 Windows sizes, which equal
// the Linux x64 ones for these fixed-width fields), and the COM vtable slot tables checked against
// the documented interface order (UIAutomationClient.idl, written out again here).
import koffi from 'koffi';
import { describe, expect, it } from 'vitest';
import { parseGuid, win32Types } from '../../../src/helpers/win32/ffi/koffi';
import { VTABLE, slotTable } from '../../../src/helpers/win32/ffi/vtables';

describe('Win32 struct layouts', () => {
  const t = win32Types(koffi);

  it('GUID is 16 bytes: Data1 @0, Data2 @4, Data3 @6, Data4[8] @8', () => {
    expect(koffi.sizeof(t.GUID)).toBe(16);
    expect([0, 4, 6, 8]).toEqual(
      ['Data1', 'Data2', 'Data3', 'Data4'].map((f) => koffi.offsetof(t.GUID, f)),
    );
  });

  it('POINT is 8 bytes and RECT 16 (LONG is 32-bit on Windows)', () => {
    expect(koffi.sizeof(t.POINT)).toBe(8);
    expect(koffi.offsetof(t.POINT, 'y')).toBe(4);
    expect(koffi.sizeof(t.RECT)).toBe(16);
    expect(['left', 'top', 'right', 'bottom'].map((f) => koffi.offsetof(t.RECT, f))).toEqual([
      0, 4, 8, 12,
    ]);
  });

  it('MONITORINFOEXW is 104 bytes: cbSize, rcMonitor @4, rcWork @20, dwFlags @36, szDevice[32] @40', () => {
    expect(koffi.sizeof(t.MONITORINFOEXW)).toBe(104);
    expect(
      ['cbSize', 'rcMonitor', 'rcWork', 'dwFlags', 'szDevice'].map((f) =>
        koffi.offsetof(t.MONITORINFOEXW, f),
      ),
    ).toEqual([0, 4, 20, 36, 40]);
  });

  it('VARIANT is 24 bytes on x64 with the value union at 8', () => {
    expect(koffi.sizeof(t.VARIANT)).toBe(24);
    expect(koffi.alignof(t.VARIANT)).toBe(8);
    expect(koffi.offsetof(t.VARIANT, 'value')).toBe(8);
  });

  it('defines the types once per koffi instance', () => {
    expect(win32Types(koffi)).toBe(t);
  });

  it('parses GUID strings into the struct fields (CLSID_CUIAutomation)', () => {
    expect(parseGuid('ff48dba4-60ef-4201-aa87-54103eef594e')).toEqual({
      Data1: 0xff48dba4,
      Data2: 0x60ef,
      Data3: 0x4201,
      Data4: [0xaa, 0x87, 0x54, 0x10, 0x3e, 0xef, 0x59, 0x4e],
    });
    // round trip through the koffi struct: the bytes Windows would read
    const buffer = Buffer.alloc(16);
    koffi.encode(buffer, t.GUID, parseGuid('30cbe57d-d9d0-452a-ab13-7ac5ac4825ee'));
    expect(buffer.toString('hex')).toBe('7de5cb30d0d92a45ab137ac5ac4825ee');
    expect(() => parseGuid('not-a-guid')).toThrow(/not a GUID/);
  });
});

// The documented order, from UIAutomationClient.idl (methods in declaration order, a propget
// before its propput), written independently of src/helpers/win32/ffi/vtables.ts.
const IUIAUTOMATION_IDL = `CompareElements CompareRuntimeIds GetRootElement ElementFromHandle ElementFromPoint
GetFocusedElement GetRootElementBuildCache ElementFromHandleBuildCache ElementFromPointBuildCache
GetFocusedElementBuildCache CreateTreeWalker get_ControlViewWalker get_ContentViewWalker
get_RawViewWalker get_RawViewCondition get_ControlViewCondition get_ContentViewCondition
CreateCacheRequest CreateTrueCondition CreateFalseCondition CreatePropertyCondition
CreatePropertyConditionEx CreateAndCondition CreateAndConditionFromArray
CreateAndConditionFromNativeArray CreateOrCondition CreateOrConditionFromArray
CreateOrConditionFromNativeArray CreateNotCondition AddAutomationEventHandler
RemoveAutomationEventHandler AddPropertyChangedEventHandlerNativeArray
AddPropertyChangedEventHandler RemovePropertyChangedEventHandler AddStructureChangedEventHandler
RemoveStructureChangedEventHandler AddFocusChangedEventHandler RemoveFocusChangedEventHandler
RemoveAllEventHandlers IntNativeArrayToSafeArray IntSafeArrayToNativeArray RectToVariant
VariantToRect SafeArrayToRectNativeArray CreateProxyFactoryEntry get_ProxyFactoryMapping
GetPropertyProgrammaticName GetPatternProgrammaticName PollForPotentialSupportedPatterns
PollForPotentialSupportedProperties CheckNotSupported get_ReservedNotSupportedValue
get_ReservedMixedAttributeValue ElementFromIAccessible ElementFromIAccessibleBuildCache`;

const IUIAUTOMATION2_IDL = `get_AutoSetFocus put_AutoSetFocus get_ConnectionTimeout put_ConnectionTimeout
get_TransactionTimeout put_TransactionTimeout`;

const ELEMENT_PROPS = `ProcessId ControlType LocalizedControlType Name AcceleratorKey AccessKey
HasKeyboardFocus IsKeyboardFocusable IsEnabled AutomationId ClassName HelpText Culture
IsControlElement IsContentElement IsPassword NativeWindowHandle ItemType IsOffscreen Orientation
FrameworkId IsRequiredForForm ItemStatus BoundingRectangle LabeledBy AriaRole AriaProperties
IsDataValidForForm ControllerFor DescribedBy FlowsTo ProviderDescription`;

const IUIAUTOMATIONELEMENT_IDL = `SetFocus GetRuntimeId FindFirst FindAll FindFirstBuildCache
FindAllBuildCache BuildUpdatedCache GetCurrentPropertyValue GetCurrentPropertyValueEx
GetCachedPropertyValue GetCachedPropertyValueEx GetCurrentPatternAs GetCachedPatternAs
GetCurrentPattern GetCachedPattern GetCachedParent GetCachedChildren
${words(ELEMENT_PROPS)
  .map((p) => `get_Current${p}`)
  .join(' ')}
${words(ELEMENT_PROPS)
  .map((p) => `get_Cached${p}`)
  .join(' ')}
GetClickablePoint`;

const IUIAUTOMATIONCACHEREQUEST_IDL = `AddProperty AddPattern Clone get_TreeScope put_TreeScope
get_TreeFilter put_TreeFilter get_AutomationElementMode put_AutomationElementMode`;

const IUIAUTOMATIONTREEWALKER_IDL = `GetParentElement GetFirstChildElement GetLastChildElement
GetNextSiblingElement GetPreviousSiblingElement NormalizeElement GetParentElementBuildCache
GetFirstChildElementBuildCache GetLastChildElementBuildCache GetNextSiblingElementBuildCache
GetPreviousSiblingElementBuildCache NormalizeElementBuildCache get_Condition`;

function words(text: string): string[] {
  return text.split(/\s+/).filter((w) => w !== '');
}

function slotsOf(table: Readonly<Record<string, number>>): string[] {
  return Object.entries(table)
    .sort((a, b) => a[1] - b[1])
    .map(([name]) => name);
}

const IUNKNOWN = ['QueryInterface', 'AddRef', 'Release'];

describe('COM vtable slot tables', () => {
  it('IUnknown is QueryInterface 0, AddRef 1, Release 2 at the start of every table', () => {
    for (const table of Object.values(VTABLE)) {
      expect(slotsOf(table).slice(0, 3)).toEqual(IUNKNOWN);
    }
  });

  it('IUIAutomation follows the IDL order', () => {
    expect(slotsOf(VTABLE.IUIAutomation)).toEqual([...IUNKNOWN, ...words(IUIAUTOMATION_IDL)]);
    const a = VTABLE.IUIAutomation;
    expect(a.CompareElements).toBe(3);
    expect(a.GetRootElement).toBe(5);
    expect(a.ElementFromHandle).toBe(6);
    expect(a.ElementFromPoint).toBe(7);
    expect(a.GetFocusedElement).toBe(8);
    expect(a.GetRootElementBuildCache).toBe(9);
    expect(a.ElementFromHandleBuildCache).toBe(10);
    expect(a.ElementFromPointBuildCache).toBe(11);
    expect(a.GetFocusedElementBuildCache).toBe(12);
    expect(a.CreateTreeWalker).toBe(13);
    expect(a.get_ControlViewWalker).toBe(14);
    expect(a.CreateCacheRequest).toBe(20);
    expect(a.CreatePropertyCondition).toBe(23);
    expect(a.ElementFromIAccessibleBuildCache).toBe(57);
  });

  it('IUIAutomation2 extends IUIAutomation with the timeouts at 58–63', () => {
    expect(slotsOf(VTABLE.IUIAutomation2)).toEqual([
      ...IUNKNOWN,
      ...words(IUIAUTOMATION_IDL),
      ...words(IUIAUTOMATION2_IDL),
    ]);
    expect(VTABLE.IUIAutomation2.get_AutoSetFocus).toBe(58);
    expect(VTABLE.IUIAutomation2.put_ConnectionTimeout).toBe(61);
    expect(VTABLE.IUIAutomation2.put_TransactionTimeout).toBe(63);
  });

  it('IUIAutomationElement follows the IDL order (32 Current then 32 Cached properties)', () => {
    expect(slotsOf(VTABLE.IUIAutomationElement)).toEqual([
      ...IUNKNOWN,
      ...words(IUIAUTOMATIONELEMENT_IDL),
    ]);
    const e = VTABLE.IUIAutomationElement;
    expect(e.SetFocus).toBe(3);
    expect(e.FindAllBuildCache).toBe(8);
    expect(e.GetCurrentPropertyValue).toBe(10);
    expect(e.GetCachedPropertyValue).toBe(12);
    expect(e.GetCachedChildren).toBe(19);
    expect(e.get_CurrentProcessId).toBe(20);
    expect(e.get_CachedProcessId).toBe(52);
    expect(e.get_CachedControlType).toBe(53);
    expect(e.get_CachedName).toBe(55);
    expect(e.get_CachedHasKeyboardFocus).toBe(58);
    expect(e.get_CachedIsEnabled).toBe(60);
    expect(e.get_CachedAutomationId).toBe(61);
    expect(e.get_CachedClassName).toBe(62);
    expect(e.get_CachedIsPassword).toBe(67);
    expect(e.get_CachedBoundingRectangle).toBe(75);
    expect(e.GetClickablePoint).toBe(84);
  });

  it('IUIAutomationCacheRequest, IUIAutomationTreeWalker and IUIAutomationElementArray follow the IDL', () => {
    expect(slotsOf(VTABLE.IUIAutomationCacheRequest)).toEqual([
      ...IUNKNOWN,
      ...words(IUIAUTOMATIONCACHEREQUEST_IDL),
    ]);
    expect(VTABLE.IUIAutomationCacheRequest.AddProperty).toBe(3);
    expect(VTABLE.IUIAutomationCacheRequest.AddPattern).toBe(4);
    expect(VTABLE.IUIAutomationCacheRequest.put_TreeScope).toBe(7);
    expect(VTABLE.IUIAutomationCacheRequest.put_AutomationElementMode).toBe(11);
    expect(slotsOf(VTABLE.IUIAutomationTreeWalker)).toEqual([
      ...IUNKNOWN,
      ...words(IUIAUTOMATIONTREEWALKER_IDL),
    ]);
    expect(VTABLE.IUIAutomationTreeWalker.GetParentElementBuildCache).toBe(9);
    expect(VTABLE.IUIAutomationTreeWalker.GetFirstChildElementBuildCache).toBe(10);
    expect(VTABLE.IUIAutomationTreeWalker.GetNextSiblingElementBuildCache).toBe(12);
    expect(slotsOf(VTABLE.IUIAutomationElementArray)).toEqual([
      ...IUNKNOWN,
      'get_Length',
      'GetElement',
    ]);
  });

  it('refuses a table that names a method twice', () => {
    expect(() => slotTable(IUNKNOWN, ['Release'])).toThrow(/duplicate/);
  });
});
