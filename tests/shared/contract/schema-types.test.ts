// The types inferred from the schemas equal the contract as it was written by hand (legacy/, a
// copy of commit 4b61a4a), apart from the narrowings listed here. tsc checks these assertions
// (`npm run typecheck:node`); at run time they only prove the file loads.
import { describe, expectTypeOf, it } from 'vitest';
import type {
  ApiEvents,
  ApiMethods,
  RecordingDto,
  StepDto,
  StepEdit,
  TaskLabels,
  UploadViewDto,
} from '../../../src/shared/contract';
import type {
  ActionCall,
  EventCounts,
  PlatformInfo,
  PreMove,
  RecordingSummary,
  ScreenInfo,
  StepKind,
} from '../../../src/shared/domain';
import type * as Old from './legacy/methods';
import type * as OldEdits from './legacy/edits';
import type * as OldDomain from './legacy/domain';

/** True when A and B are the same type (not merely assignable). */
type Equal<A, B> =
  (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
type AllTrue = { [M in keyof Old.ApiMethods]: true };
type InputsEqual = {
  [M in keyof Old.ApiMethods]: Equal<ApiMethods[M]['input'], Old.ApiMethods[M]['input']>;
};
/** Methods that returned the recording page now return the schema's (its steps' kind narrowed). */
type OutputsEqual = {
  [M in keyof Old.ApiMethods]: Old.ApiMethods[M]['output'] extends Old.RecordingDto
    ? Equal<ApiMethods[M]['output'], RecordingDto>
    : Equal<ApiMethods[M]['output'], Old.ApiMethods[M]['output']>;
};

describe('types inferred from the schemas', () => {
  it('equal the hand-written domain types', () => {
    expectTypeOf<ActionCall>().toEqualTypeOf<OldDomain.ActionCall>();
    expectTypeOf<EventCounts>().toEqualTypeOf<OldDomain.EventCounts>();
    expectTypeOf<PlatformInfo>().toEqualTypeOf<OldDomain.PlatformInfo>();
    expectTypeOf<ScreenInfo>().toEqualTypeOf<OldDomain.ScreenInfo>();
    expectTypeOf<PreMove>().toEqualTypeOf<OldDomain.PreMove>();
    expectTypeOf<StepKind>().toEqualTypeOf<OldDomain.StepKind>();
    expectTypeOf<RecordingSummary>().toEqualTypeOf<OldDomain.RecordingSummary>();
  });

  it('equal the hand-written DTOs and edits', () => {
    expectTypeOf<StepEdit>().toEqualTypeOf<OldEdits.StepEdit>();
    expectTypeOf<TaskLabels>().toEqualTypeOf<Old.TaskLabels>();
    expectTypeOf<UploadViewDto>().toEqualTypeOf<Old.UploadViewDto>();
    // narrowed: a step's kind is one of the domain's step kinds (was any string)
    expectTypeOf<Omit<StepDto, 'kind'>>().toEqualTypeOf<Omit<Old.StepDto, 'kind'>>();
    expectTypeOf<StepDto['kind']>().toEqualTypeOf<StepKind>();
    expectTypeOf<Omit<RecordingDto, 'steps'>>().toEqualTypeOf<Omit<Old.RecordingDto, 'steps'>>();
  });

  it('equal the hand-written method inputs and outputs, for every method', () => {
    expectTypeOf<keyof ApiMethods>().toEqualTypeOf<keyof Old.ApiMethods>();
    expectTypeOf<InputsEqual>().toEqualTypeOf<AllTrue>();
    expectTypeOf<OutputsEqual>().toEqualTypeOf<AllTrue>();
  });

  it('equal the hand-written event payloads (keyframes:progress is new)', () => {
    expectTypeOf<ApiEvents['exports:progress']>().toEqualTypeOf<
      Old.ApiEvents['exports:progress']
    >();
    expectTypeOf<ApiEvents['recordings:changed']>().toEqualTypeOf<
      Old.ApiEvents['recordings:changed']
    >();
    expectTypeOf<ApiEvents['uploads:progress']>().toEqualTypeOf<
      Old.ApiEvents['uploads:progress']
    >();
  });
});
