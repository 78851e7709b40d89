// The PyAutoGUI-style action space (docs/pyautogui-code.md §1).
import * as v from 'valibot';

/** Every call name of the action space. */
export const ACTION_NAMES = [
  'click',
  'doubleClick',
  'tripleClick',
  'rightClick',
  'middleClick',
  'moveTo',
  'dragTo',
  'scroll',
  'hscroll',
  'write',
  'press',
  'hotkey',
  'wait',
  'terminate',
] as const;
/** One of {@link ACTION_NAMES}. */
export const ActionNameSchema = v.picklist(ACTION_NAMES);
/** One of {@link ACTION_NAMES}. */
export type ActionName = v.InferOutput<typeof ActionNameSchema>;

/** Buttons a pointer call may name (`button=`). */
export const CALL_BUTTONS = ['left', 'right', 'middle'] as const;
/** One of {@link CALL_BUTTONS}. */
export type CallButton = (typeof CALL_BUTTONS)[number];

/** Outcomes of a `terminate` call (`status=`). */
export const TERMINATE_STATUSES = ['success', 'failure'] as const;
/** One of {@link TERMINATE_STATUSES}. */
export type TerminateStatus = (typeof TERMINATE_STATUSES)[number];

/** A Python-typed argument value: ints and floats differ when printed (`-3` vs `-3.0`). */
export type PyValue = { int: number } | { float: number } | string | boolean | null | PyValue[];

// Built by a function marked free of side effects: a bundle that never checks a value (the
// renderer) drops the self-referencing schema whole.
/* @__NO_SIDE_EFFECTS__ */
function pyValueSchema(): v.GenericSchema<PyValue> {
  const schema: v.GenericSchema<PyValue> = v.lazy(() =>
    v.union([
      v.strictObject({ int: v.number() }),
      v.strictObject({ float: v.number() }),
      v.string(),
      v.boolean(),
      v.null(),
      v.array(schema),
    ]),
  );
  return schema;
}
/** Any {@link PyValue} (a recursive type is written out once, here). */
export const PyValueSchema = pyValueSchema();

/** One call, e.g. `pyautogui.click(x=0.5, y=0.5)`. Args keep insertion order. */
export const ActionCallSchema = v.strictObject({
  name: ActionNameSchema,
  /** Keyword arguments in insertion order, or positional arguments when an array. */
  args: v.union([v.record(v.string(), PyValueSchema), v.array(PyValueSchema)]),
});
/** One call, e.g. `pyautogui.click(x=0.5, y=0.5)`. Args keep insertion order. */
export type ActionCall = v.InferOutput<typeof ActionCallSchema>;
