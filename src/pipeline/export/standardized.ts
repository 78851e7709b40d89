// OpenCUA standardized Trajectory JSON (docs/pyautogui-code.md §2, §6.2), serialised like orjson.
import type { ActionCall, PyValue } from '../../shared/domain';
import type { TrajectoryStep } from './trajectory';

/** The system prompt text of every standardized trajectory. */
export const SYSTEM_TEXT =
  'You are a GUI agent. You are given a task and a screenshot of the screen. You need to perform a series of pyautogui actions to complete the task.';

function num(v: number, isFloat: boolean): string {
  if (!Number.isFinite(v) || Math.abs(v) >= 1e16) {
    throw new RangeError(`standardized export: number ${v} cannot be written like orjson`);
  }
  const s = String(v);
  if (!isFloat) {
    return s;
  }
  if (Object.is(v, -0)) {
    return '-0.0';
  }
  return Number.isInteger(v) ? `${s}.0` : s;
}

function value(v: PyValue): string {
  if (v === null) {
    return 'null';
  }
  if (typeof v === 'string') {
    return JSON.stringify(v);
  }
  if (typeof v === 'boolean') {
    return v ? 'true' : 'false';
  }
  if (Array.isArray(v)) {
    return `[${v.map(value).join(',')}]`;
  }
  if ('int' in v) {
    return num(v.int, false);
  }
  return num(v.float, true);
}

function argsJson(args: ActionCall['args']): string {
  if (Array.isArray(args)) {
    return `[${args.map(value).join(',')}]`;
  }
  return `{${Object.entries(args)
    .map(([k, v]) => `${JSON.stringify(k)}:${value(v)}`)
    .join(',')}}`;
}

function str(v: string | null): string {
  return v === null ? 'null' : JSON.stringify(v);
}

/** Inputs of {@link buildStandardizedJson}. */
export type StandardizedInput = {
  /** `example_id` and the image file prefix. */
  episodeId: string;
  taskName: string;
  steps: readonly TrajectoryStep[];
  /** The `content` of image i (a data URI, or a relative path when images are files). */
  imageContent: (imageIndex: number) => string;
};

/** File name of image i: `<episode>_<i>.png`. */
export function standardizedImageName(episodeId: string, imageIndex: number): string {
  return `${episodeId}_${imageIndex}.png`;
}

/** Builds the Trajectory JSON text exactly as the upstream stage 2 + orjson would. */
export function buildStandardizedJson(input: StandardizedInput): string {
  const image = (i: number) =>
    `{"class_":"image_observation","content":${str(input.imageContent(i))},"filename":${str(standardizedImageName(input.episodeId, i))},"annotations":null,"source":"os"}`;
  const items: string[] = [
    `{"class_":"text_observation","content":${str(SYSTEM_TEXT)},"source":"system"}`,
  ];
  input.steps.forEach((s, k) => {
    items.push(image(s.imageIndex));
    if (k === 0) {
      items.push(`{"class_":"text_observation","content":${str(input.taskName)},"source":"user"}`);
    }
    const actions = s.calls.map(
      (c) => `{"action_type":${str(c.name)},"target":null,"args":${argsJson(c.args)}}`,
    );
    items.push(
      `{"observation":null,"thought":null,"instruction":${str(s.instruction)},"guiactions":[${actions.join(',')}]}`,
    );
  });
  return `{"task_id":"agentnet","example_id":${str(input.episodeId)},"type":"end2end","content":[${items.join(',')}]}`;
}
