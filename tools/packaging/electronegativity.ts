// Electronegativity (@doyensec/electronegativity 1.10.3) over the built JavaScript of the Electron
// main process and preload, offline (docs/packaging.md §8). It scans one input at a time and
// parses only .js/.jsx/.ts/.tsx/.html/.json, so the bundles are copied into one scratch folder
// (`.cjs`/`.mjs` renamed `.js`) and scanned together: its global checks (navigation limits,
// permission handler, CSP) then see main and preload as one app. Findings above INFORMATIONAL
// fail unless an allow-list entry explains them.
import { copyFile, mkdir, mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';

const require = createRequire(import.meta.url);

/**
 * Checks left out: they judge the Electron version against Electron's release list, which
 * Electronegativity fetches from the network (AVAILABLE_SECURITY_FIXES_GLOBAL_CHECK) or which is
 * meaningless without it (ELECTRON_VERSION_JSON_CHECK). Names as Electronegativity's `-x` takes them.
 */
export const NETWORK_CHECKS = ['AvailableSecurityFixesGlobalCheck', 'ElectronVersionJSONCheck'];

/** Severities in Electronegativity's order; anything above INFORMATIONAL needs an allow entry. */
export const SEVERITIES = ['INFORMATIONAL', 'LOW', 'MEDIUM', 'HIGH'] as const;

export type Finding = {
  /** Check id, e.g. SANDBOX_JS_CHECK. */
  id: string;
  severity: string;
  confidence: string;
  /** The scanned file, relative to the project ('N/A' for whole-app global findings). */
  file: string;
  line: number;
  column: number;
  description: string;
  manualReview: boolean;
};

/** One allow-list entry: a check id (optionally in one file) and why its finding is acceptable. */
export type AllowEntry = { id: string; file?: string; reason: string };

export type LintResult = {
  findings: Finding[];
  /** Findings above INFORMATIONAL with no allow entry: these fail the lint. */
  unexplained: Finding[];
  /** Allow entries that matched no finding (stale): these fail the lint too. */
  unused: AllowEntry[];
  /** Files Electronegativity could not parse (a parse failure hides findings: fails the lint). */
  parseErrors: { file: string; message: string }[];
  /** How many checks ran (atomic + global). */
  checks: number;
};

type RawIssue = {
  id: string;
  file: string;
  location: { line: number; column: number };
  description: string;
  manualReview: boolean;
  severity: { name: string };
  confidence: { name: string };
};

type RunResult = {
  atomicChecks: number;
  globalChecks: number;
  errors: { file: string; message: string; tolerable: boolean }[];
  issues: RawIssue[];
};

type RunOptions = {
  input: string;
  electronVersionOverride: string;
  excludeFromScan: string[];
  isRelative: boolean;
};

/**
 * Electronegativity's run(), with its one network call cut off: on start it fetches updated
 * translations with `got` (retrying for seconds, then crashing the process from a timer when
 * offline). The `got` it resolves is replaced in the require cache by an answer "404", which
 * makes it keep its bundled English strings.
 */
function loadRunner(): (options: RunOptions) => Promise<RunResult> {
  const packageDir = path.dirname(require.resolve('@doyensec/electronegativity/package.json'));
  const gotPath = require.resolve('got', { paths: [packageDir] });
  const offlineGot = (): Promise<{ statusCode: number; body: string }> =>
    Promise.resolve({ statusCode: 404, body: '' });
  require.cache[gotPath] = {
    id: gotPath,
    filename: gotPath,
    loaded: true,
    exports: offlineGot,
  } as unknown as NodeJS.Module;
  return require('@doyensec/electronegativity') as (options: RunOptions) => Promise<RunResult>;
}

/** The Electron version the app is built with (Electronegativity's defaults depend on it). */
export async function electronVersion(root: string): Promise<string> {
  const pkg = JSON.parse(
    await readFile(path.join(root, 'node_modules', 'electron', 'package.json'), 'utf8'),
  ) as { version: string };
  return pkg.version;
}

const slashes = (file: string): string => file.split(path.sep).join('/');

/**
 * Copies the JavaScript of `dirs` into `scratch/<n>/…` (n: the dir's index, so nothing escapes
 * the scratch folder); returns staged path → the file's path relative to `root`.
 */
async function stage(root: string, dirs: string[], scratch: string): Promise<Map<string, string>> {
  const origin = new Map<string, string>();
  for (const [index, dir] of dirs.entries()) {
    const base = path.resolve(root, dir);
    const entries = await readdir(base, { recursive: true, withFileTypes: true });
    for (const entry of entries) {
      if (!entry.isFile() || !/\.(c|m)?js$/.test(entry.name)) {
        continue;
      }
      const source = path.join(entry.parentPath, entry.name);
      const staged = path.join(
        String(index),
        path.relative(base, source).replace(/\.(c|m)js$/, '.js'),
      );
      await mkdir(path.dirname(path.join(scratch, staged)), { recursive: true });
      await copyFile(source, path.join(scratch, staged));
      origin.set(slashes(staged), slashes(path.relative(root, source)));
    }
  }
  return origin;
}

const matches = (entry: AllowEntry, finding: Finding): boolean =>
  entry.id === finding.id && (entry.file === undefined || entry.file === finding.file);

/** Runs Electronegativity over `dirs` (relative to `root`) and judges its findings. */
export async function lintElectron(options: {
  root: string;
  dirs: string[];
  allow: AllowEntry[];
}): Promise<LintResult> {
  const { root, dirs, allow } = options;
  const scratch = await mkdtemp(path.join(os.tmpdir(), 'electronegativity-'));
  try {
    const origin = await stage(root, dirs, scratch);
    if (origin.size === 0) {
      throw new Error(`no JavaScript in ${dirs.join(', ')}`);
    }
    const run = loadRunner();
    const result = await run({
      input: scratch,
      electronVersionOverride: await electronVersion(root),
      excludeFromScan: NETWORK_CHECKS.map((name) => name.toLowerCase()),
      isRelative: true,
    });
    const original = (file: string): string => origin.get(slashes(file)) ?? file;
    const findings = result.issues.map((issue): Finding => ({
      id: issue.id,
      severity: issue.severity.name,
      confidence: issue.confidence.name,
      file: original(issue.file),
      line: issue.location.line,
      column: issue.location.column,
      description: issue.description,
      manualReview: issue.manualReview,
    }));
    const serious = findings.filter((f) => f.severity !== 'INFORMATIONAL');
    return {
      findings,
      unexplained: serious.filter((f) => !allow.some((entry) => matches(entry, f))),
      unused: allow.filter((entry) => !serious.some((f) => matches(entry, f))),
      parseErrors: result.errors
        .filter((e) => !e.tolerable)
        .map((e) => ({ file: original(path.relative(scratch, e.file)), message: e.message })),
      checks: result.atomicChecks + result.globalChecks,
    };
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}

/** Reads an allow-list file: a JSON array of {id, file?, reason}, each with a real reason. */
export async function readAllowList(file: string): Promise<AllowEntry[]> {
  const parsed = JSON.parse(await readFile(file, 'utf8')) as unknown;
  if (!Array.isArray(parsed)) {
    throw new Error(`${file}: expected a JSON array of {id, file?, reason}`);
  }
  return parsed.map((item: unknown, index): AllowEntry => {
    const entry = item as Partial<AllowEntry>;
    if (typeof entry.id !== 'string' || typeof entry.reason !== 'string') {
      throw new Error(`${file}[${index}]: id and reason are required`);
    }
    if (entry.reason.trim().length < 20) {
      throw new Error(`${file}[${index}] (${entry.id}): the reason must say why (20+ characters)`);
    }
    return entry.file === undefined
      ? { id: entry.id, reason: entry.reason }
      : { id: entry.id, file: entry.file, reason: entry.reason };
  });
}
