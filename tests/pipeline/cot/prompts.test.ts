// The prompts are upstream's, unchanged (SHA-256 of each string as Python holds it at OpenCUA
// commit 1d70f20663dc, after its .strip() where upstream strips), and pyFormat fills them exactly
// as Python's str.format does (tests/helpers/cot-upstream.py), tricky values included.
import crypto from 'node:crypto';
import { describe, expect, it } from 'vitest';
import * as prompts from '../../../src/pipeline/cot/prompts';
import { pyFormat } from '../../../src/pipeline/cot/py-format';
import { upstreamFormat } from '../../helpers/cot-upstream';

const UPSTREAM_SHA256: Record<keyof typeof prompts, string> = {
  COT_GENERATOR_PROMPT_FOR_MOUSE_ACTION:
    '774fa28e7d2658dd0989c634fa4ae8f7f2c07f4f35c07624fd84ef5a6c8dd7a2',
  COT_GENERATOR_PROMPT_FOR_KEYBOARD_ACTION:
    '6ef33374e192643eb7f6e924e950ae436523b97c444d3131882ea881526458ac',
  REFLECT_COT_GENERATOR_PROMPT_FOR_MOUSE_ACTION:
    '6e51eaa356d822016ae6c168aa5b79ed69231a1bbc6e2eb002753de2bf9bfc91',
  REFLECT_COT_GENERATOR_PROMPT_FOR_KEYBOARD_ACTION:
    '8496ee817fb0202396ed65da6f1197668b52696d630b143d3a9daf9ee3b5f417',
  DOUBLE_CHECK_PROMPT: 'edc6fd41265024472ce2f1854186b54d480e8dd88b4a6bc18647336699e2903d',
  TRANSIT_REFLECTION_WITH_IMAGE_PATCH_FORMAT_PROMPT:
    'dad48fe1c8bf5f62a430937711fb74e9e64444fa2b579a0a929c9cc48ce5faef',
  TRANSIT_REFLECTION_FORMAT_PROMPT:
    '2c6edbae8ad3c790ed7c694cc9e48dc81dcdd06d16e039a212c174a736475e0b',
  TRANSIT_REFLECTION_FORMAT_PROMPT_TERMINATE_STEP:
    'ed424c5b100a76d1d2fd39e218536e67e62bb177c2ffa1b99518518bd87936d8',
  REFLECTION_FORMAT_PROMPT: '41359278e566cfa81633dc24b297cb91baa35c78be887d21b81b668e474bf54a',
  PRIOR_JUDGE_TRANSIT_REFLECTION_FORMAT_PROMPT:
    '6d66fef537d3ff320268c4f04c4334f86b03deb8f9c071f938ef32c26d12224e',
  PRIOR_JUDGE_TRANSIT_REFLECTION_FORMAT_PROMPT_LAST_INCORRECT:
    '3ff13bd2c7059bdf6b27b1468f380b61708295fc2a4e148a59183a325ddf94a4',
  PRIOR_JUDGE_REFLECTION_ONLY_FORMAT_PROMPT:
    '8d745b74c0799909d7e8acc6e6475af1742a10a3cd028db01b7985fe1ba5bfe0',
  TRAJECTORY_EVAL_FORMAT_PROMPT: '321603ec8d749ec5af8968ac3438e8b9fd6d67f3f8ca053652933d31af313f2f',
  FINAL_TRAJECTORY_EVAL_PROMPT: '32bb6bf1d01dfda92c66afa5550295ad9d2d18ceaa44991989b7d1c663ba30a4',
  STEP_FORMAT: '6a7ecae78b499f5b1a0e29c5805d51edf243656f852b5b7b36b90dfb8a739bdf',
};

const sha256 = (s: string) => crypto.createHash('sha256').update(s, 'utf8').digest('hex');

describe('the prompts', () => {
  it('are upstream’s strings, byte for byte', () => {
    const ours = Object.fromEntries(
      Object.entries(prompts).map(([name, text]) => [name, sha256(text)]),
    );
    expect(ours).toEqual(UPSTREAM_SHA256);
  });
});

describe('pyFormat = Python str.format', () => {
  const tricky = 'a {b} }} {{ c\nline two\ttab — “quotes” 漢字 \\n';
  const generatorArgs = {
    goal: tricky,
    previous_actions: 'Step 1: Click {x}\nStep 2: Type "}"\n',
    former_thought: 'None',
    former_action_effect: '',
    action_commands: "pyautogui.write(message='{{}}')",
  };
  const reflectorArgs = {
    goal: tricky,
    history_steps: 'None',
    thought: 'T {0}',
    action: 'A',
    code: 'pyautogui.click(x=0.5, y=0.5)',
  };
  const cases: { template: string; kwargs: Record<string, string | number | boolean> }[] = [
    { template: prompts.COT_GENERATOR_PROMPT_FOR_MOUSE_ACTION, kwargs: generatorArgs },
    { template: prompts.COT_GENERATOR_PROMPT_FOR_KEYBOARD_ACTION, kwargs: generatorArgs },
    { template: prompts.REFLECT_COT_GENERATOR_PROMPT_FOR_MOUSE_ACTION, kwargs: generatorArgs },
    { template: prompts.REFLECT_COT_GENERATOR_PROMPT_FOR_KEYBOARD_ACTION, kwargs: generatorArgs },
    {
      template: prompts.DOUBLE_CHECK_PROMPT,
      kwargs: { observation: 'o {', thought: 't }', action: 'a' },
    },
    { template: prompts.TRANSIT_REFLECTION_WITH_IMAGE_PATCH_FORMAT_PROMPT, kwargs: reflectorArgs },
    { template: prompts.TRANSIT_REFLECTION_FORMAT_PROMPT, kwargs: reflectorArgs },
    { template: prompts.TRANSIT_REFLECTION_FORMAT_PROMPT_TERMINATE_STEP, kwargs: reflectorArgs },
    { template: prompts.PRIOR_JUDGE_TRANSIT_REFLECTION_FORMAT_PROMPT, kwargs: reflectorArgs },
    {
      template: prompts.PRIOR_JUDGE_TRANSIT_REFLECTION_FORMAT_PROMPT_LAST_INCORRECT,
      kwargs: reflectorArgs,
    },
    { template: prompts.TRAJECTORY_EVAL_FORMAT_PROMPT, kwargs: { goal: tricky, steps: '' } },
    {
      template: prompts.STEP_FORMAT,
      kwargs: {
        index: 12,
        thought: tricky,
        action: 'x',
        last_step_correct: true,
        last_step_redundant: false,
        reflection: '',
      },
    },
    { template: 'esc {{x}} {{{goal}}}', kwargs: { goal: 'g' } },
  ];

  it('fills every template the pipeline formats as Python does', () => {
    const python = upstreamFormat(cases);
    const ours = cases.map((c) => pyFormat(c.template, c.kwargs));
    expect(ours).toEqual(python);
    expect(pyFormat('{} {0} {1}', {}, ['a', 'b'])).toBe('a a b');
  });

  it('refuses what it does not implement instead of filling it differently', () => {
    expect(() => pyFormat('{goal!r}', { goal: 'x' })).toThrow(/subset/);
    expect(() => pyFormat('{goal:>5}', { goal: 'x' })).toThrow(/subset/);
    expect(() => pyFormat('{missing}', {})).toThrow(/KeyError/);
    expect(() => pyFormat('a } b', {})).toThrow(/single '}'/);
    expect(() => pyFormat('a { b', {})).toThrow(/single '\{'/);
  });
});
