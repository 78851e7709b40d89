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

// Python's whitespace (what `\s` matches in a str pattern and str.strip() removes), which is not
// JavaScript's: Python counts \x1c–\x1f and \x85, JavaScript U+FEFF
// (tests/pipeline/cot/parse.test.ts compares with Python case by case).
const PY_SPACE =
  '\\t\\n\\v\\f\\r\\x1c-\\x20\\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000';
const PY_STRIP = new RegExp(`^[${PY_SPACE}]+|[${PY_SPACE}]+$`, 'g');

/** Python's str.strip() with no argument. */
export function pyStrip(text: string): string {
  return text.replace(PY_STRIP, '');
}

// Python's re with DOTALL | IGNORECASE, pattern for pattern: \s as Python's, [^] (any character) as
// DOTALL's dot
const section = (pattern: string) => new RegExp(pattern.replaceAll('\\s', `[${PY_SPACE}]`), 'i');
const OBSERVATION = section(String.raw`## Observation:?\s*([^]*?)(?=\n##\s*Thought:)`);
const THOUGHT = section(String.raw`## Thought:?\s*([^]*?)(?=\n##\s*Action:)`);
const ACTION = section(String.raw`## Action:?\s*([^]*)`);

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
  const pick = (re: RegExp) => pyStrip(re.exec(text)?.[1] ?? '');
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
  return pyStrip(end < 0 ? rest : rest.slice(0, end));
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
