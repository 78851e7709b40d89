// COM vtable slot tables of the UI Automation interfaces the Windows helper calls, as data in the
// documented order (UIAutomationClient.idl: methods in declaration order, a [propget] before its
// [propput]), each after its base interface's slots (IUnknown: 0–2). A slot is the method's
// index in the vtable; koffi calls the function pointer read from that slot (com.ts).
// Checked against an independent list in tests/helpers/win32/vtables.test.ts.

/** IUnknown, the base of every interface. */
export const IUNKNOWN_METHODS = ['QueryInterface', 'AddRef', 'Release'] as const;

/** IUIAutomation (30cbe57d-d9d0-452a-ab13-7ac5ac4825ee) after IUnknown. */
export const IUIAUTOMATION_METHODS = [
  'CompareElements',
  'CompareRuntimeIds',
  'GetRootElement',
  'ElementFromHandle',
  'ElementFromPoint',
  'GetFocusedElement',
  'GetRootElementBuildCache',
  'ElementFromHandleBuildCache',
  'ElementFromPointBuildCache',
  'GetFocusedElementBuildCache',
  'CreateTreeWalker',
  'get_ControlViewWalker',
  'get_ContentViewWalker',
  'get_RawViewWalker',
  'get_RawViewCondition',
  'get_ControlViewCondition',
  'get_ContentViewCondition',
  'CreateCacheRequest',
  'CreateTrueCondition',
  'CreateFalseCondition',
  'CreatePropertyCondition',
  'CreatePropertyConditionEx',
  'CreateAndCondition',
  'CreateAndConditionFromArray',
  'CreateAndConditionFromNativeArray',
  'CreateOrCondition',
  'CreateOrConditionFromArray',
  'CreateOrConditionFromNativeArray',
  'CreateNotCondition',
  'AddAutomationEventHandler',
  'RemoveAutomationEventHandler',
  'AddPropertyChangedEventHandlerNativeArray',
  'AddPropertyChangedEventHandler',
  'RemovePropertyChangedEventHandler',
  'AddStructureChangedEventHandler',
  'RemoveStructureChangedEventHandler',
  'AddFocusChangedEventHandler',
  'RemoveFocusChangedEventHandler',
  'RemoveAllEventHandlers',
  'IntNativeArrayToSafeArray',
  'IntSafeArrayToNativeArray',
  'RectToVariant',
  'VariantToRect',
  'SafeArrayToRectNativeArray',
  'CreateProxyFactoryEntry',
  'get_ProxyFactoryMapping',
  'GetPropertyProgrammaticName',
  'GetPatternProgrammaticName',
  'PollForPotentialSupportedPatterns',
  'PollForPotentialSupportedProperties',
  'CheckNotSupported',
  'get_ReservedNotSupportedValue',
  'get_ReservedMixedAttributeValue',
  'ElementFromIAccessible',
  'ElementFromIAccessibleBuildCache',
] as const;

/** IUIAutomation2 (34723aff-0c9d-49d0-9896-7ab52df8cd8a) after IUIAutomation. */
export const IUIAUTOMATION2_METHODS = [
  'get_AutoSetFocus',
  'put_AutoSetFocus',
  'get_ConnectionTimeout',
  'put_ConnectionTimeout',
  'get_TransactionTimeout',
  'put_TransactionTimeout',
] as const;

/** IUIAutomationElement (d22108aa-8ac5-49a5-837b-37bbb3d7591e) after IUnknown. */
export const IUIAUTOMATIONELEMENT_METHODS = [
  'SetFocus',
  'GetRuntimeId',
  'FindFirst',
  'FindAll',
  'FindFirstBuildCache',
  'FindAllBuildCache',
  'BuildUpdatedCache',
  'GetCurrentPropertyValue',
  'GetCurrentPropertyValueEx',
  'GetCachedPropertyValue',
  'GetCachedPropertyValueEx',
  'GetCurrentPatternAs',
  'GetCachedPatternAs',
  'GetCurrentPattern',
  'GetCachedPattern',
  'GetCachedParent',
  'GetCachedChildren',
  ...elementProperties('Current'),
  ...elementProperties('Cached'),
  'GetClickablePoint',
] as const;

// The 32 element properties, each once as Current… and once as Cached…, in IDL order.
function elementProperties<P extends 'Current' | 'Cached'>(prefix: P) {
  return [
    `get_${prefix}ProcessId`,
    `get_${prefix}ControlType`,
    `get_${prefix}LocalizedControlType`,
    `get_${prefix}Name`,
    `get_${prefix}AcceleratorKey`,
    `get_${prefix}AccessKey`,
    `get_${prefix}HasKeyboardFocus`,
    `get_${prefix}IsKeyboardFocusable`,
    `get_${prefix}IsEnabled`,
    `get_${prefix}AutomationId`,
    `get_${prefix}ClassName`,
    `get_${prefix}HelpText`,
    `get_${prefix}Culture`,
    `get_${prefix}IsControlElement`,
    `get_${prefix}IsContentElement`,
    `get_${prefix}IsPassword`,
    `get_${prefix}NativeWindowHandle`,
    `get_${prefix}ItemType`,
    `get_${prefix}IsOffscreen`,
    `get_${prefix}Orientation`,
    `get_${prefix}FrameworkId`,
    `get_${prefix}IsRequiredForForm`,
    `get_${prefix}ItemStatus`,
    `get_${prefix}BoundingRectangle`,
    `get_${prefix}LabeledBy`,
    `get_${prefix}AriaRole`,
    `get_${prefix}AriaProperties`,
    `get_${prefix}IsDataValidForForm`,
    `get_${prefix}ControllerFor`,
    `get_${prefix}DescribedBy`,
    `get_${prefix}FlowsTo`,
    `get_${prefix}ProviderDescription`,
  ] as const;
}

/** IUIAutomationElementArray (14314595-b4bc-4055-95f2-58f2e42c9855) after IUnknown. */
export const IUIAUTOMATIONELEMENTARRAY_METHODS = ['get_Length', 'GetElement'] as const;

/** IUIAutomationCacheRequest (b32a92b5-bc25-4078-9c08-d7ee95c48e03) after IUnknown. */
export const IUIAUTOMATIONCACHEREQUEST_METHODS = [
  'AddProperty',
  'AddPattern',
  'Clone',
  'get_TreeScope',
  'put_TreeScope',
  'get_TreeFilter',
  'put_TreeFilter',
  'get_AutomationElementMode',
  'put_AutomationElementMode',
] as const;

/** IUIAutomationTreeWalker (4042c624-389c-4afc-a630-9df854a541fc) after IUnknown. */
export const IUIAUTOMATIONTREEWALKER_METHODS = [
  'GetParentElement',
  'GetFirstChildElement',
  'GetLastChildElement',
  'GetNextSiblingElement',
  'GetPreviousSiblingElement',
  'NormalizeElement',
  'GetParentElementBuildCache',
  'GetFirstChildElementBuildCache',
  'GetLastChildElementBuildCache',
  'GetNextSiblingElementBuildCache',
  'GetPreviousSiblingElementBuildCache',
  'NormalizeElementBuildCache',
  'get_Condition',
] as const;

/** Slot index of every method of an interface: base methods first, then its own. */
export function slotTable<const M extends string>(
  base: readonly string[],
  own: readonly M[],
): Readonly<Record<M | (typeof IUNKNOWN_METHODS)[number], number>> {
  const table: Record<string, number> = {};
  [...base, ...own].forEach((name, index) => {
    if (name in table) {
      throw new Error(`duplicate vtable method ${name}`);
    }
    table[name] = index;
  });
  return table as Record<M | (typeof IUNKNOWN_METHODS)[number], number>;
}

/** The slot tables the bindings use. */
export const VTABLE = {
  IUnknown: slotTable([], IUNKNOWN_METHODS),
  IUIAutomation: slotTable(IUNKNOWN_METHODS, IUIAUTOMATION_METHODS),
  IUIAutomation2: slotTable(
    [...IUNKNOWN_METHODS, ...IUIAUTOMATION_METHODS],
    IUIAUTOMATION2_METHODS,
  ),
  IUIAutomationElement: slotTable(IUNKNOWN_METHODS, IUIAUTOMATIONELEMENT_METHODS),
  IUIAutomationElementArray: slotTable(IUNKNOWN_METHODS, IUIAUTOMATIONELEMENTARRAY_METHODS),
  IUIAutomationCacheRequest: slotTable(IUNKNOWN_METHODS, IUIAUTOMATIONCACHEREQUEST_METHODS),
  IUIAutomationTreeWalker: slotTable(IUNKNOWN_METHODS, IUIAUTOMATIONTREEWALKER_METHODS),
} as const;
