// Public API of the action reducer (docs/action-reduction.md §C).
export { reduce } from './reduce';
export { DEFAULT_REDUCE_CONSTANTS, REDUCER_VERSION, resolveConstants } from './constants';
export {
  CANONICAL_MODIFIER_ORDER,
  canonicalModifiers,
  isPrintableText,
  LOCK_KEYS,
  normalizeKeyName,
} from './key-names';
export type { ModifierName, NormalizedKey } from './key-names';
export { msToSecondsFast } from './clock-fast';
export type {
  AgentNetRowFields,
  KeystrokeRecord,
  PathPoint,
  PressRecord,
  ReduceConstants,
  ReduceContext,
  ReduceDiagnostic,
  ReduceDiagnosticCode,
  ReducedStepExtra,
  ReducePlatform,
  ReduceResult,
  ReduceSource,
  ScrollTickRecord,
  UnownedEvent,
  UnownedReason,
} from './types';
