// Reading the model's answers as upstream does (docs/cot.md §4): the generator's three
// `## Observation / ## Thought / ## Action` sections (upstream parse_generator_response, each
// required and non-empty), and the reflector's and summarizer's JSON (a ```json fence is cut
// out first; then strict JSON; the reflection checked like upstream's pydantic model).
import { AppError } from '../../shared/errors';

/** The generator's sections. */
export type GeneratorSections = { observation: string; thought: string; action: string };

/** The reflector's judgement of a step (the prior-judge variant gives only `reflection`). */
export type Reflection = {
  lastStepCorrect: boolean;
  lastStepRedundant: boolean;
  reflection: string;
};

// Python's re with DOTALL | IGNORECASE, pattern for pattern
const OBSERVATION = /## Observation:?\s*([\s\S]*?)(?=\n##\s*Thought:)/i;
const THOUGHT = /## Thought:?\s*([\s\S]*?)(?=\n##\s*Action:)/i;
const ACTION = /## Action:?\s*([\s\S]*)/i;

function invalid(what: string, text: string): AppError {
  const shown = text.length > 300 ? `${text.slice(0, 300)}…` : text;
  return new AppError(
    'COT_ANSWER_INVALID',
    `The model's ${what} answer cannot be read: ${shown}`,
    undefined,
    'Run the command again (finished steps are kept); if the model keeps answering this way, try another --model.',
  );
}

/** The three sections of a generator answer; COT_ANSWER_INVALID when one is missing or empty. */
export function parseGeneratorAnswer(text: string): GeneratorSections {
  const pick = (re: RegExp) => re.exec(text)?.[1]?.trim() ?? '';
  const observation = pick(OBSERVATION);
  const thought = pick(THOUGHT);
  const action = pick(ACTION);
  if (!observation || !thought || !action) {
    throw invalid('generator (needs ## Observation, ## Thought and ## Action)', text);
  }
  return { observation, thought, action };
}

/** Upstream's fence rule: the text between the first ```json and the next ```, stripped. */
export function cutJsonFence(text: string): string {
  const at = text.indexOf('```json');
  if (at < 0) {
    return text;
  }
  const rest = text.slice(at + '```json'.length);
  const end = rest.indexOf('```');
  return (end < 0 ? rest : rest.slice(0, end)).trim();
}

function parseObject(what: string, text: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(cutJsonFence(text));
  } catch {
    throw invalid(`${what} (not JSON)`, text);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw invalid(`${what} (not a JSON object)`, text);
  }
  return value as Record<string, unknown>;
}

// pydantic's lax bool (upstream validates with ReflectionResult): true/false, 0/1 and its strings
function laxBool(value: unknown): boolean | null {
  if (typeof value === 'boolean') {
    return value;
  }
  if (value === 0 || value === 1) {
    return value === 1;
  }
  if (typeof value === 'string') {
    const s = value.toLowerCase();
    if (['1', 'on', 't', 'true', 'y', 'yes'].includes(s)) {
      return true;
    }
    if (['0', 'off', 'f', 'false', 'n', 'no'].includes(s)) {
      return false;
    }
  }
  return null;
}

/** The reflector's JSON (upstream ReflectionResult); COT_ANSWER_INVALID otherwise. */
export function parseReflectionAnswer(text: string): Reflection {
  const o = parseObject('reflector', text);
  const lastStepCorrect = laxBool(o.last_step_correct);
  const lastStepRedundant = laxBool(o.last_step_redundant);
  if (lastStepCorrect === null || lastStepRedundant === null || typeof o.reflection !== 'string') {
    throw invalid('reflector (needs last_step_correct, last_step_redundant, reflection)', text);
  }
  return { lastStepCorrect, lastStepRedundant, reflection: o.reflection };
}

/** The prior-judge reflector's JSON: its `reflection` string (upstream reads that key). */
export function parsePriorJudgeAnswer(text: string): string {
  const o = parseObject('reflector', text);
  if (typeof o.reflection !== 'string') {
    throw invalid('reflector (needs reflection)', text);
  }
  return o.reflection;
}

/** The summarizer's JSON object, every key kept (upstream merges it whole into the record). */
export function parseSummaryAnswer(text: string): Record<string, unknown> {
  return parseObject('summarizer', text);
}
