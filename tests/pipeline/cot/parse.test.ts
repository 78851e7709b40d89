// Reading the model's answers (docs/cot.md §4) against upstream, case by case: every answer of the
// table goes through our parser and through upstream's (tests/helpers/cot-upstream.py in Python:
// parse_generator_response's regexes, the ```json fence cut and strict JSON), and both must take
// the same sections or values, or both refuse it. Python's whitespace is not JavaScript's
// (\x1c–\x1f and \x85 are space to Python's \s and str.strip(), U+FEFF only to JavaScript's).
import { describe, expect, it } from 'vitest';
import { parseGeneratorAnswer, parseSummaryAnswer } from '../../../src/pipeline/cot/parse';
import { upstreamParse } from '../../helpers/cot-upstream';

const GENERATOR_ANSWERS: [string, string][] = [
  ['canonical', '## Observation:\nA window.\n\n## Thought:\nI click.\n\n## Action:\nClick OK.'],
  ['no colons', '## Observation\nA\n## Thought\nB\n## Action\nC'],
  ['lower case, same line', '## observation: a\n## thought: b\n## action: c'],
  ['upper case, CRLF', '## OBSERVATION:\r\nA\r\n## THOUGHT:\r\nB\r\n## ACTION:\r\nC\r\n'],
  ['spaces after ## of Thought', '## Observation: A\n##   Thought: B\n## Action: C'],
  ['no space after ##', '##Observation: A\n##Thought: B\n##Action: C'],
  ['Thought on the same line', '## Observation: A ## Thought: B\n## Action: C'],
  ['inside a fence', '```\n## Observation:\nA\n## Thought:\nB\n## Action:\nC\n```'],
  ['a section after Action', '## Observation: A\n## Thought: B\n## Action: C\n\n## Code:\nx()'],
  [
    'sections twice',
    '## Observation: A\n## Thought: B\n## Action: C\n## Observation: D\n## Thought: E',
  ],
  ['empty thought', '## Observation:\nA\n\n## Thought:\n\n## Action:\nC'],
  ['empty action', '## Observation: A\n## Thought: B\n## Action:   \n'],
  ['no sections', 'Observation: A\nThought: B\nAction: C'],
  [
    'text before, unicode',
    'Sure!\n## Observation:\n設定\u3000画面\n## Thought:\n“quoted” — ok\n## Action:\nクリック',
  ],
  [
    'Python-only spaces at the ends',
    '## Observation:\x1c\nA\x1f\n## Thought:\x85B\x1e\n## Action:\nC\x1d\x85',
  ],
  ['U+FEFF at the ends', '## Observation:\ufeffA\ufeff\n## Thought:\nB\n## Action:\nC\ufeff'],
  ['U+FEFF only', '## Observation:\nA\n## Thought:\n\ufeff\n## Action:\nC'],
  ['\\x85 only', '## Observation:\nA\n## Thought:\n\x85\n## Action:\nC'],
];

const JSON_ANSWERS: [string, string][] = [
  ['bare object', '{"last_step_correct": true, "reflection": "ok"}'],
  ['fenced', '```json\n{"a": 1, "b": [true, null]}\n```'],
  ['fenced, text around', 'Here it is:\n```json\n{"reflection": "x"}\n```\nThanks.'],
  ['fence not closed', '```json\n{"a": 1}'],
  ['two fences: the first', '```json\n{"a": 1}\n```\n```json\n{"a": 2}\n```'],
  ['upper-case fence', '```JSON\n{"a": 1}\n```'],
  ['plain fence', '```\n{"a": 1}\n```'],
  ['NaN', '{"a": NaN}'],
  ['Infinity', '```json\n{"a": -Infinity}\n```'],
  ['duplicate keys', '{"a": 1, "a": 2}'],
  ['trailing comma', '{"a": 1,}'],
  ['single quotes', "{'a': 1}"],
  ['an array', '[1, 2]'],
  ['a string', '"yes"'],
  ['JSON spaces around', ' \t\r\n{"a": "b"}\n '],
  ['unicode escapes', '{"r": "\\u8a2d\\u5b9a \\ud83d\\ude00"}'],
  ['Python-only spaces in the fence', '```json\x1c\n{"a": 1}\x85\n```'],
  ['U+FEFF in the fence', '```json\n\ufeff{"a": 1}\ufeff\n```'],
  ['U+FEFF before a bare object', '\ufeff{"a": 1}'],
];

const ours = (read: () => unknown) => {
  try {
    return { ok: true, value: read() };
  } catch {
    return { ok: false, value: null };
  }
};

describe('answers read as upstream reads them', () => {
  it('generator: the same three sections, or refused by both', () => {
    const theirs = upstreamParse(
      GENERATOR_ANSWERS.map(([, text]) => ({ kind: 'generator', text })),
    );
    const got = GENERATOR_ANSWERS.map(([name, text]) => ({
      name,
      ...ours(() => parseGeneratorAnswer(text)),
    }));
    expect(got).toEqual(GENERATOR_ANSWERS.map(([name], i) => ({ name, ...theirs[i]! })));
    expect(got.filter((g) => g.ok).length).toBeGreaterThan(5);
  });

  it('JSON answers: the same object, or refused by both (upstream fails on a non-object too)', () => {
    const theirs = upstreamParse(JSON_ANSWERS.map(([, text]) => ({ kind: 'json', text })));
    const got = JSON_ANSWERS.map(([name, text]) => ({
      name,
      ...ours(() => parseSummaryAnswer(text)),
    }));
    const isObject = (v: unknown) => typeof v === 'object' && v !== null && !Array.isArray(v);
    expect(got).toEqual(
      JSON_ANSWERS.map(([name], i) => {
        const t = theirs[i]!;
        return t.ok && isObject(t.value) ? { name, ...t } : { name, ok: false, value: null };
      }),
    );
    expect(got.filter((g) => g.ok).length).toBeGreaterThan(5);
  });
});
