// Checks of electron-builder.yml that need no Electron and no network (docs/packaging.md §7):
// the file against electron-builder's own JSON schema (draft-07, the scheme.json that
// app-builder-lib validates with at packaging time), every file it names, and the settings the
// app relies on (fuse hook, native modules unpacked, hardened runtime, usage strings, installers).
import { access, readFile } from 'node:fs/promises';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import { load } from 'js-yaml';

/** The outcome: problems fail `npm run package:check`; notes are printed only. */
export type CheckResult = { problems: string[]; notes: string[] };

export type CheckOptions = {
  /** The project folder (package.json, node_modules, build/): paths in the config are relative to it. */
  root: string;
  /** The config to check; default `<root>/electron-builder.yml`. */
  configFile?: string;
};

/** macOS usage strings the app needs (docs/packaging.md §3): Screen Recording, Apple Events. */
export const REQUIRED_USAGE_STRINGS = [
  'NSScreenCaptureUsageDescription',
  'NSAppleEventsUsageDescription',
] as const;

/** The bundles that must be packed: electron-vite's main, preload and renderer, the Node build. */
export const REQUIRED_FILES = ['out/main/**', 'out/preload/**', 'out/renderer/**', 'out/node/**'];

/** Packages with native code that must sit outside the asar (docs/packaging.md §6). */
export const UNPACKED_PACKAGES = ['better-sqlite3', 'uiohook-napi', 'ffmpeg-static', 'koffi'];

/** The asarUnpack pattern of nut-js's native packages (`@nut-tree-fork/libnut-<os>`: libnut.node
 * and, on Windows, the C runtime DLLs beside it), loaded by the replay driver child. */
export const LIBNUT_UNPACKED = 'node_modules/@nut-tree-fork/libnut-*/**';

/** The asarUnpack pattern of koffi's per-OS binary packages (`@koromix/koffi-<os>-<arch>`). */
export const KOFFI_BINARIES_UNPACKED = 'node_modules/@koromix/koffi-*/**';

/**
 * koffi's binary packages each installer needs (docs/packaging.md §6): npm installs the one of
 * the build machine as an optional dependency of koffi; the accessibility helpers load it.
 */
export const KOFFI_PACKAGES: Record<'mac' | 'win' | 'linux', string[]> = {
  mac: ['@koromix/koffi-darwin-x64', '@koromix/koffi-darwin-arm64'],
  win: ['@koromix/koffi-win32-x64', '@koromix/koffi-win32-arm64'],
  linux: ['@koromix/koffi-linux-x64', '@koromix/koffi-linux-arm64'],
};

/** The accessibility helper bundles, packed in app.asar with the child entries they are. */
export const HELPER_BUNDLES = ['ax-helper-win32', 'ax-helper-darwin'];

/** Debian packages the recorder needs at run time (docs/platform-linux.md §1). */
export const DEB_DEPENDS = ['ffmpeg', 'libxtst6', 'at-spi2-core'];

/**
 * Node-API prebuilds that `npmRebuild: false` relies on, per packaged platform: the file each
 * package loads in Electron without a rebuild.
 */
export const PREBUILDS: Record<string, string[]> = {
  'better-sqlite3': [
    'prebuilds/linux-x64.node',
    'prebuilds/darwin-x64.node',
    'prebuilds/darwin-arm64.node',
    'prebuilds/win32-x64.node',
  ],
  'uiohook-napi': [
    'prebuilds/linux-x64/uiohook-napi.node',
    'prebuilds/darwin-x64/uiohook-napi.node',
    'prebuilds/darwin-arm64/uiohook-napi.node',
    'prebuilds/win32-x64/uiohook-napi.node',
  ],
};

/** Entitlements that must be granted, and ones that must not (docs/packaging.md §3). */
export const ENTITLEMENTS_REQUIRED = ['com.apple.security.cs.allow-jit'];
export const ENTITLEMENTS_FORBIDDEN = [
  'com.apple.security.cs.disable-library-validation',
  'com.apple.security.cs.allow-unsigned-executable-memory',
  'com.apple.security.device.audio-input',
  'com.apple.security.device.camera',
];

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** `config.a.b.c`, or undefined when a step is missing. */
function at(config: Json, ...keys: string[]): unknown {
  let value: unknown = config;
  for (const key of keys) {
    if (!isObject(value)) {
      return undefined;
    }
    value = value[key];
  }
  return value;
}

/** A string or the `target` names of a target list. */
function targetNames(value: unknown): string[] {
  const items = Array.isArray(value) ? (value as unknown[]) : [value];
  return items.flatMap((item) =>
    typeof item === 'string'
      ? [item]
      : isObject(item) && typeof item.target === 'string'
        ? [item.target]
        : [],
  );
}

function stringList(value: unknown): string[] {
  const items = Array.isArray(value) ? (value as unknown[]) : [value];
  return items.filter((item): item is string => typeof item === 'string');
}

async function exists(file: string): Promise<boolean> {
  try {
    await access(file);
    return true;
  } catch {
    return false;
  }
}

/** One line per schema error, e.g. `/mac: must NOT have additional properties (hardenedRuntim)`. */
function schemaProblem(error: ErrorObject): string {
  const where = error.instancePath === '' ? '/' : error.instancePath;
  const params = error.params as Record<string, unknown>;
  const detail =
    typeof params.additionalProperty === 'string'
      ? ` (${params.additionalProperty})`
      : Array.isArray(params.allowedValues)
        ? ` (${params.allowedValues.join(', ')})`
        : '';
  return `schema: ${where}: ${error.message ?? error.keyword}${detail}`;
}

/**
 * ajv reports a failed anyOf once per branch; the branch errors below a path are enough, and an
 * anyOf alone is kept only when nothing more specific was found at or below its path.
 */
function relevantErrors(errors: ErrorObject[]): ErrorObject[] {
  // "must be null": the `null` branch every option's anyOf has, noise beside the real error
  const isNullBranch = (e: ErrorObject): boolean =>
    e.keyword === 'type' && (e.params as { type?: unknown }).type === 'null';
  const isComposite = (e: ErrorObject): boolean => ['anyOf', 'oneOf', 'if'].includes(e.keyword);
  const specific = errors.filter((e) => !isComposite(e) && !isNullBranch(e));
  return errors.filter((e) =>
    isComposite(e) || isNullBranch(e)
      ? !specific.some((s) => s.instancePath.startsWith(e.instancePath))
      : true,
  );
}

/** Compiled schema validators by scheme.json path (compiling takes a good part of a second). */
const validators = new Map<string, Promise<ValidateFunction>>();

async function compileSchema(schemaFile: string): Promise<ValidateFunction> {
  const schema = JSON.parse(await readFile(schemaFile, 'utf8')) as Json;
  // electron-builder's own options (strict off: the schema has keywords such as `tsType`), without
  // its type coercion, so that a string where a boolean belongs fails here
  return new Ajv({ allErrors: true, strict: false }).compile(schema);
}

/** Validates `config` against app-builder-lib's scheme.json (draft-07, as electron-builder does). */
export async function schemaProblems(root: string, config: unknown): Promise<string[]> {
  const schemaFile = path.join(root, 'node_modules', 'app-builder-lib', 'scheme.json');
  let compiled = validators.get(schemaFile);
  if (!compiled) {
    compiled = compileSchema(schemaFile);
    validators.set(schemaFile, compiled);
  }
  const validate = await compiled;
  if (validate(config)) {
    return [];
  }
  return [...new Set(relevantErrors(validate.errors ?? []).map(schemaProblem))];
}

/** The keys set to true in a plist (enough for an entitlements file); comments are skipped. */
export function plistTrueKeys(xml: string): string[] {
  const uncommented = xml.replace(/<!--[\s\S]*?-->/g, '');
  return [...uncommented.matchAll(/<key>\s*([^<]+?)\s*<\/key>\s*<true\s*\/>/g)].map((m) => m[1]!);
}

/** A file of a package, for matching `files` patterns against it. */
const packageFile = (name: string): string => `node_modules/${name}/package.json`;

/**
 * koffi and its per-OS binaries (docs/packaging.md §6): koffi is a production dependency, lists
 * each target's binary package as an optional dependency of its own version, no `files` pattern
 * (top-level or the platform's) drops a target's own binary, every other system's binaries are
 * dropped, and both are unpacked. The helper bundles are child entries (built beside the main
 * bundle and the CLI, both packed whole).
 */
async function koffiProblems(
  root: string,
  config: Json,
  files: string[],
  unpacked: string[],
): Promise<string[]> {
  const problems: string[] = [];
  const pkg = JSON.parse(await readFile(path.join(root, 'package.json'), 'utf8')) as Json;
  const koffiVersion = at(pkg, 'dependencies', 'koffi');
  if (typeof koffiVersion !== 'string') {
    problems.push('package.json: koffi must be a dependency (the accessibility helpers load it)');
  }
  if (!unpacked.includes(KOFFI_BINARIES_UNPACKED)) {
    problems.push(`asarUnpack: ${KOFFI_BINARIES_UNPACKED} is missing (koffi's binaries)`);
  }
  if (!unpacked.includes(LIBNUT_UNPACKED)) {
    problems.push(`asarUnpack: ${LIBNUT_UNPACKED} is missing (nut-js's native libnut, replay)`);
  }
  let optional: Json = {};
  try {
    const koffi = JSON.parse(
      await readFile(path.join(root, 'node_modules', 'koffi', 'package.json'), 'utf8'),
    ) as Json;
    optional = isObject(koffi.optionalDependencies) ? koffi.optionalDependencies : {};
    if (typeof koffiVersion === 'string' && koffi.version !== koffiVersion) {
      problems.push(
        `node_modules/koffi is ${String(koffi.version)}, package.json pins ${koffiVersion}`,
      );
    }
  } catch {
    problems.push('node_modules/koffi is not installed (npm ci)');
  }
  const allKoffi = Object.values(KOFFI_PACKAGES).flat();
  for (const [platform, names] of Object.entries(KOFFI_PACKAGES)) {
    const patterns = [...files, ...stringList(at(config, platform, 'files'))];
    const excluded = (name: string): boolean =>
      patterns.some((p) => p.startsWith('!') && path.matchesGlob(packageFile(name), p.slice(1)));
    for (const name of names) {
      if (typeof koffiVersion === 'string' && optional[name] !== koffiVersion) {
        problems.push(`koffi ${koffiVersion} does not list ${name} ${koffiVersion} (${platform})`);
      }
      if (excluded(name)) {
        problems.push(`${platform}.files: excludes ${name}, the helper's koffi binary`);
      }
    }
    for (const name of allKoffi.filter((n) => !names.includes(n))) {
      if (!excluded(name)) {
        problems.push(`${platform}.files: ${name} (another system's koffi binary) is not excluded`);
      }
    }
  }
  return problems;
}

/** Checks electron-builder.yml (see the file comment). */
export async function checkBuilderConfig(options: CheckOptions): Promise<CheckResult> {
  const { root } = options;
  const configFile = options.configFile ?? path.join(root, 'electron-builder.yml');
  const problems: string[] = [];
  const notes: string[] = [];
  const fromRoot = (file: string): string => path.resolve(root, file);

  const parsed = load(await readFile(configFile, 'utf8'));
  if (!isObject(parsed)) {
    return { problems: [`${configFile} is not a YAML mapping`], notes };
  }
  const config = parsed;
  problems.push(...(await schemaProblems(root, config)));

  // files the config names
  const buildResources = at(config, 'directories', 'buildResources');
  const referenced: [string, unknown][] = [
    ['directories.buildResources', buildResources],
    ['afterPack', config.afterPack],
    ['mac.entitlements', at(config, 'mac', 'entitlements')],
    ['mac.entitlementsInherit', at(config, 'mac', 'entitlementsInherit')],
    ['mac.icon', at(config, 'mac', 'icon')],
    ['win.icon', at(config, 'win', 'icon')],
    ['linux.icon', at(config, 'linux', 'icon')],
    ['nsis.include', at(config, 'nsis', 'include')],
  ];
  for (const [key, value] of referenced) {
    if (typeof value !== 'string' || value === '') {
      problems.push(`${key} is not set`);
    } else if (!(await exists(fromRoot(value)))) {
      problems.push(`${key}: ${value} does not exist`);
    }
  }
  for (const platform of ['mac', 'win', 'linux']) {
    const extra = at(config, platform, 'extraResources');
    for (const item of Array.isArray(extra) ? (extra as unknown[]) : []) {
      const from = isObject(item) ? item.from : item;
      if (typeof from === 'string' && !(await exists(fromRoot(from)))) {
        notes.push(`${platform}.extraResources: ${from} is not built here (packed when present)`);
      }
    }
  }

  // the fuse hook loads and is a function (its fuses are tested in tests/packaging)
  if (typeof config.afterPack === 'string' && (await exists(fromRoot(config.afterPack)))) {
    const hook = (await import(pathToFileURL(fromRoot(config.afterPack)).href)) as Json;
    if (typeof hook.afterPack !== 'function' && typeof hook.default !== 'function') {
      problems.push(`afterPack: ${config.afterPack} exports no afterPack function`);
    }
  }

  // what goes into the asar, and what stays outside it
  const files = stringList(config.files);
  for (const pattern of REQUIRED_FILES) {
    if (!files.includes(pattern)) {
      problems.push(`files: ${pattern} is missing`);
    }
  }
  const unpacked = stringList(config.asarUnpack);
  for (const name of UNPACKED_PACKAGES) {
    if (!unpacked.includes(`node_modules/${name}/**`)) {
      problems.push(`asarUnpack: node_modules/${name}/** is missing`);
    }
  }
  problems.push(...(await koffiProblems(root, config, files, unpacked)));
  if (config.npmRebuild !== false) {
    problems.push('npmRebuild must be false (Node-API prebuilds load in Electron as they are)');
  }
  for (const [name, prebuilds] of Object.entries(PREBUILDS)) {
    for (const file of prebuilds) {
      if (!(await exists(fromRoot(`node_modules/${name}/${file}`)))) {
        problems.push(`${name}: no Node-API prebuild ${file} (npmRebuild false needs it)`);
      }
    }
  }

  // macOS: hardened runtime, entitlements, usage strings
  if (at(config, 'mac', 'hardenedRuntime') !== true) {
    problems.push('mac.hardenedRuntime must be true');
  }
  if (at(config, 'mac', 'gatekeeperAssess') !== false) {
    problems.push('mac.gatekeeperAssess must be false');
  }
  for (const key of REQUIRED_USAGE_STRINGS) {
    const text = at(config, 'mac', 'extendInfo', key);
    if (typeof text !== 'string' || text.trim().length < 20) {
      problems.push(`mac.extendInfo.${key}: a usage string is required`);
    }
  }
  const entitlements = at(config, 'mac', 'entitlements');
  if (typeof entitlements === 'string' && (await exists(fromRoot(entitlements)))) {
    const granted = plistTrueKeys(await readFile(fromRoot(entitlements), 'utf8'));
    for (const key of ENTITLEMENTS_REQUIRED) {
      if (!granted.includes(key)) {
        problems.push(`${entitlements}: ${key} is required`);
      }
    }
    for (const key of ENTITLEMENTS_FORBIDDEN) {
      if (granted.includes(key)) {
        problems.push(`${entitlements}: ${key} is not needed (docs/packaging.md §3)`);
      }
    }
  }

  // installers
  const wanted: [string, string][] = [
    ['mac', 'dmg'],
    ['win', 'nsis'],
    ['linux', 'AppImage'],
    ['linux', 'deb'],
  ];
  for (const [platform, target] of wanted) {
    if (!targetNames(at(config, platform, 'target')).includes(target)) {
      problems.push(`${platform}.target: ${target} is missing`);
    }
  }
  if (at(config, 'nsis', 'perMachine') !== false) {
    problems.push('nsis.perMachine must be false (per-user install)');
  }
  const depends = stringList(at(config, 'deb', 'depends'));
  for (const name of DEB_DEPENDS) {
    if (!depends.includes(name)) {
      problems.push(`deb.depends: ${name} is missing`);
    }
  }
  return { problems, notes };
}
