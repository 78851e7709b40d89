// Domain types shared by every layer, with the enums and schemas they are inferred from
// (docs/architecture.md §3: each list is written once, here).
export * from './raw-event';
export * from './action';
export * from './recording';
export * from './step';
export * from './step-kind';
export * from './split-step';
export * from './export';
export * from './upload';
export * from './keyframe';
export * from './display';
export * from './privacy';
export * from './live-warning';
export * from './quality';
export * from './replay';
