// AgentNetBench per-step metric (docs/pyautogui-code.md §8.2): ground-truth actions vs a parsed
// prediction. Pure: no I/O; inputs are never mutated.

/** Points within this distance of the GT point score 1.0. */
export const COORD_THRESHOLD = 0.01 * Math.sqrt(2);
/** Decay rate of the coordinate score beyond {@link COORD_THRESHOLD}. */
export const ALPHA = 120;
/** Write similarity at or above this scores 1.0; below it scores similarity / threshold. */
export const WRITE_SIMILARITY_THRESHOLD = 0.8;

/** One GT bbox (only `rel_bbox` [x, y, w, h], normalised, is read). */
export type GtBbox = {
  category_id?: number;
  rel_bbox?: readonly number[];
  abs_bbox?: readonly number[];
  area?: number;
};

/** GT action parameters; which fields are present depends on the action type. */
export type GtParams = {
  position?: { x: number; y: number };
  amount?: number;
  text?: string;
  content?: string;
  keys?: readonly string[] | string;
  status?: string;
};

/** One ground-truth action of a bench step (`ground_truth_actions[]` entry). */
export type GtAction = {
  type: string;
  params?: GtParams;
  metadata?: { bboxes?: readonly GtBbox[] };
};

/** A bench step's scoring fields (§8.1). */
export type BenchStep = {
  ground_truth_actions: readonly GtAction[];
  alternative_options?: readonly (readonly GtAction[])[] | null;
};

/** Value of a predicted action: point, text, keys, scroll amount or status. */
export type PredValue = readonly [number, number] | string | readonly string[] | number;

/** One predicted action `(type, value)`, e.g. `['click', [0.5, 0.5]]`. */
export type PredAction = readonly [type: string, value: PredValue];

/** Step total and per-type means (types keyed lower-case, in first-GT-occurrence order). */
export type ActionScore = { total: number; perType: Record<string, number> };

/** {@link ActionScore} plus which GT list produced it. */
export type StepScore = ActionScore & {
  usedActions: readonly GtAction[];
  alternativeMatched: boolean;
};

const COORDINATE_TYPES: ReadonlySet<string> = new Set([
  'click',
  'doubleclick',
  'rightclick',
  'tripleclick',
  'moveto',
  'dragto',
]);
const ENTER_KEYS: ReadonlySet<string> = new Set(['enter', 'return']);
// Python str.strip() whitespace (str.isspace characters).
const PY_SPACE =
  '[\\t\\n\\x0b\\x0c\\r\\x1c-\\x1f \\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000]';
const PY_STRIP = new RegExp(`^${PY_SPACE}+|${PY_SPACE}+$`, 'gu');

// True when `keys` is exactly one Enter/Return key (case-insensitive).
function isEnterKeys(keys: unknown): boolean {
  return (
    Array.isArray(keys) &&
    keys.length === 1 &&
    typeof keys[0] === 'string' &&
    ENTER_KEYS.has(keys[0].toLowerCase())
  );
}

// GT write text (`text`, else `content`).
function gtText(action: GtAction): string {
  return action.params?.text ?? action.params?.content ?? '';
}

// Merges GT `write` + (`press`|`hotkey`) Enter into one write ending in "\n"; returns a new list.
export function mergeGtWriteEnter(actions: readonly GtAction[]): GtAction[] {
  const out: GtAction[] = [];
  for (let i = 0; i < actions.length; i++) {
    const action = actions[i]!;
    const next = actions[i + 1];
    if (
      action.type === 'write' &&
      next !== undefined &&
      (next.type === 'press' || next.type === 'hotkey') &&
      isEnterKeys(next.params?.keys)
    ) {
      out.push({ ...action, params: { ...action.params, text: `${gtText(action)}\n` } });
      i++;
    } else {
      out.push(action);
    }
  }
  return out;
}

// Merges predicted `write` + `press` Enter into one write ending in "\n"; returns a new list.
export function mergePredWriteEnter(actions: readonly PredAction[]): PredAction[] {
  const out: PredAction[] = [];
  for (let i = 0; i < actions.length; i++) {
    const action = actions[i]!;
    const next = actions[i + 1];
    if (
      action[0] === 'write' &&
      next !== undefined &&
      next[0] === 'press' &&
      isEnterKeys(next[1])
    ) {
      out.push(['write', `${typeof action[1] === 'string' ? action[1] : ''}\n`]);
      i++;
    } else {
      out.push(action);
    }
  }
  return out;
}

// Levenshtein distance over code points.
export function levenshtein(a: string, b: string): number {
  const s = Array.from(a);
  const t = Array.from(b);
  if (s.length === 0) {
    return t.length;
  }
  if (t.length === 0) {
    return s.length;
  }
  let prev = Array.from({ length: t.length + 1 }, (_, j) => j);
  for (let i = 1; i <= s.length; i++) {
    const cur = [i];
    for (let j = 1; j <= t.length; j++) {
      const cost = s[i - 1] === t[j - 1] ? 0 : 1;
      cur.push(Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + cost));
    }
    prev = cur;
  }
  return prev[t.length]!;
}

// Coordinate score: 1 inside any GT rel_bbox or within COORD_THRESHOLD, else exp decay.
function coordinateScore(gt: GtAction, value: PredValue): number {
  const position = gt.params?.position;
  if (!Array.isArray(value) || value.length !== 2 || position === undefined) {
    return 0;
  }
  const [px, py] = value as readonly unknown[];
  if (typeof px !== 'number' || typeof py !== 'number') {
    return 0;
  }
  for (const bbox of gt.metadata?.bboxes ?? []) {
    const rel = bbox.rel_bbox;
    if (rel !== undefined && rel.length === 4) {
      const [x, y, w, h] = rel as readonly [number, number, number, number];
      if (x <= px && px <= x + w && y <= py && py <= y + h) {
        return 1;
      }
    }
  }
  const distance = Math.sqrt((px - position.x) ** 2 + (py - position.y) ** 2);
  if (distance <= COORD_THRESHOLD) {
    return 1;
  }
  return Math.exp(-ALPHA * (distance - COORD_THRESHOLD));
}

// Write score: normalised Levenshtein similarity of lower-cased, stripped texts.
function writeScore(gt: GtAction, value: PredValue): number {
  const normalize = (s: string): string => s.toLowerCase().replace(PY_STRIP, '');
  const a = normalize(gtText(gt));
  const b = normalize(typeof value === 'string' ? value : '');
  const longest = Math.max(Array.from(a).length, Array.from(b).length);
  const similarity = longest === 0 ? 1 : 1 - levenshtein(a, b) / longest;
  return similarity >= WRITE_SIMILARITY_THRESHOLD ? 1 : similarity / WRITE_SIMILARITY_THRESHOLD;
}

// Key score: lower-cased key sets equal (lists), else plain equality.
function keysScore(gt: GtAction, value: PredValue): number {
  const keys = gt.params?.keys;
  if (Array.isArray(keys) && Array.isArray(value)) {
    const lower = (list: readonly unknown[]): Set<string> =>
      new Set(list.map((k) => String(k).toLowerCase()));
    const a = lower(keys);
    const b = lower(value);
    return a.size === b.size && [...a].every((k) => b.has(k)) ? 1 : 0;
  }
  return keys === value ? 1 : 0;
}

// Score of one same-type GT/pred pair, or null when the type is not scored (middleclick, …).
function pairScore(type: string, gt: GtAction, value: PredValue): number | null {
  if (COORDINATE_TYPES.has(type)) {
    return coordinateScore(gt, value);
  }
  if (type === 'write') {
    return writeScore(gt, value);
  }
  if (type === 'press' || type === 'hotkey') {
    return keysScore(gt, value);
  }
  if (type === 'scroll') {
    return 1;
  }
  return null;
}

// Scores one prediction against one GT action list (§8.2 steps 1–6).
export function evaluateAction(gt: readonly GtAction[], pred: readonly PredAction[]): ActionScore {
  if (gt.length === 0 || pred.length === 0) {
    return { total: 0, perType: {} };
  }
  const gtActions = mergeGtWriteEnter(gt);
  const predActions = mergePredWriteEnter(pred);
  const first = gtActions[0]!;
  const firstPred = predActions[0]!;
  if (first.type === 'terminate') {
    const ok = firstPred[0] === 'terminate' && firstPred[1] === first.params?.status;
    return { total: ok ? 1 : 0, perType: { terminate: ok ? 1 : 0 } };
  }
  const gtTypes = new Set(gtActions.map((a) => a.type.toLowerCase()));
  if (!gtTypes.has(firstPred[0].toLowerCase())) {
    return { total: 0, perType: {} };
  }
  const scores = new Map<string, number[]>();
  const add = (type: string, score: number): void => {
    const list = scores.get(type);
    if (list === undefined) {
      scores.set(type, [score]);
    } else {
      list.push(score);
    }
  };
  gtActions.forEach((action, i) => {
    const type = action.type.toLowerCase();
    const p = predActions[i];
    if (p === undefined || p[0].toLowerCase() !== type) {
      add(type, 0);
      return;
    }
    const score = pairScore(type, action, p[1]);
    if (score !== null) {
      add(type, score);
    }
  });
  const means = [...scores.values()].map(
    (list) => list.reduce((sum, s) => sum + s, 0) / list.length,
  );
  // fromEntries defines own properties, so a type named "__proto__" stays a plain key
  const perType: Record<string, number> = Object.fromEntries(
    [...scores.keys()].map((type, i) => [type, means[i]!]),
  );
  const total = means.length === 0 ? 0 : means.reduce((sum, s) => sum + s, 0) / means.length;
  return { total, perType };
}

// Scores a step: GT first, then (only if below 1.0) each alternative option, keeping the best.
export function evaluateStep(step: BenchStep, pred: readonly PredAction[]): StepScore {
  const primary = evaluateAction(step.ground_truth_actions, pred);
  let best: StepScore = {
    ...primary,
    usedActions: step.ground_truth_actions,
    alternativeMatched: false,
  };
  if (primary.total < 1) {
    for (const option of step.alternative_options ?? []) {
      const score = evaluateAction(option, pred);
      if (score.total > best.total) {
        best = { ...score, usedActions: option, alternativeMatched: true };
      }
    }
  }
  return best;
}
