// Domain types shared by every layer.
export type * from './raw-event';
export type * from './action';
export type * from './recording';
export type * from './step';
export { RAW_EVENT_KINDS, MOUSE_BUTTONS, MODIFIER_BITS, EVENT_FLAGS } from './raw-event';
export { ACTION_NAMES } from './action';
export { RECORDING_STATUSES, REVIEW_STATUSES } from './recording';
