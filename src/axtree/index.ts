// Public surface of the platform-neutral accessibility layer. The Linux AT-SPI adapter is
// imported from './platform/linux/atspi-adapter' (it pulls in dbus-next).
export type { AccessibilityAdapter, AccessibilityInfo } from './adapter';
export type { AxBudget, TruncationReason } from './budgets';
export { BudgetTracker, DEFAULT_SNAPSHOT_BUDGET, normalizeBudget } from './budgets';
export type { AxBounds, AxElementRecord, AxFocusEvent, AxNode, AxSnapshot } from './model';
export {
  AxShapeError,
  SECURE_ROLES,
  boundsContain,
  countNodes,
  flattenNodes,
  isSecureNode,
  parseAxElementRecord,
  parseAxNode,
  parseAxSnapshot,
  serializeAxElementRecord,
  serializeAxSnapshot,
} from './model';
export { ATSPI_STATE_NAMES, decodeStates, encodeStates, hasState } from './states';
export type {
  HelperChannel,
  HelperExit,
  HelperMessage,
  NativeHelperAdapterOptions,
} from './platform/native-helper';
export {
  HELPER_METHODS,
  HELPER_PROTOCOL_VERSION,
  NativeHelperAdapter,
  parseHelperLine,
} from './platform/native-helper';
