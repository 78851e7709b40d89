// Runs tests/helpers/cot-upstream.py (upstream's Pillow cue and str.format, on Debian's
// python3-pil) for the CoT golden tests.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

const SCRIPT = path.join(import.meta.dirname, 'cot-upstream.py');
// Debian's interpreter, where python3-pil is installed (a pyenv shim earlier on PATH has no PIL)
const PYTHON = fs.existsSync('/usr/bin/python3') ? '/usr/bin/python3' : 'python3';

/** One image for the `cue` command: the PNG, the step's code, the folder for image/patch.png. */
export type UpstreamCueItem = { image: string; code: string; out: string };
/** One template for the `format` command and its keyword arguments. */
export type UpstreamFormatItem = { template: string; kwargs: Record<string, unknown> };

/** Draws upstream's cue with Pillow into each item's `out` folder; says which have a patch. */
export function upstreamCue(items: UpstreamCueItem[]): boolean[] {
  return run<{ patches: boolean[] }>('cue', items).patches;
}

/** Python's `template.format(**kwargs)` of each item. */
export function upstreamFormat(items: UpstreamFormatItem[]): string[] {
  return run<{ texts: string[] }>('format', items).texts;
}

/** One trajectory for the `flow` command: upstream's request texts given the model's answers. */
export type UpstreamFlowItem = {
  templates: Record<string, string>;
  goal: string;
  steps: { code: string; judge: boolean | null }[];
  answers: string[];
};

/** The text of every request upstream's gen_cot.py makes for each trajectory, in order. */
export function upstreamFlow(items: UpstreamFlowItem[]): string[][] {
  return run<{ texts: string[][] }>('flow', items).texts;
}

/** One answer for the `parse` command: a generator's text, or a JSON answer (reflector, summary). */
export type UpstreamParseItem = { kind: 'generator' | 'json'; text: string };

/** How upstream reads each answer: its value, or ok false where upstream raises. */
export function upstreamParse(items: UpstreamParseItem[]): { ok: boolean; value: unknown }[] {
  return run<{ results: { ok: boolean; value: unknown }[] }>('parse', items).results;
}

function run<T>(command: string, items: unknown[]): T {
  const out = execFileSync(PYTHON, [SCRIPT, command], {
    input: JSON.stringify({ items }),
    maxBuffer: 256 * 1024 * 1024,
  });
  return JSON.parse(out.toString('utf8')) as T;
}
