// Exclusion rules at capture (docs/privacy.md §1): windows by application or by title pattern
// whose keys, clicks and accessibility data are never stored. Pure: compiling the rules (bad
// regular expressions refused with the option they came from) and matching a window against them.
// Title rules run on every window title the recorder sees, so they run on a linear-time engine
// (RE2's, in pure JavaScript): a pattern that is catastrophic for a backtracking engine, such as
// `^(a+)+$`, costs no more than any other; what RE2 cannot run in linear time (backreferences,
// lookaround) is refused when the rule is given.
import { RE2JS } from 're2js';
import { AppError } from '../../shared/errors';

/** Applications excluded by default: password managers (WM_CLASS class or instance, process
 * name or macOS/Windows application name; compared case-insensitively). */
export const DEFAULT_EXCLUDED_APPS = [
  'KeePassXC',
  'KeePass',
  'KeePass2',
  '1Password',
  'Bitwarden',
  'LastPass',
  'Dashlane',
  'Enpass',
  'Seahorse',
  'Keychain Access',
  'Credential Manager',
] as const;

/** Window titles excluded by default (case-insensitive regular expressions): private and
 * incognito browser windows, gnome-keyring's Seahorse window and Windows' Credential Manager. */
export const DEFAULT_EXCLUDED_TITLES = [
  'Private Browsing',
  '\\bIncognito\\b',
  '\\bInPrivate\\b',
  'Private Window',
  '^Passwords and Keys$',
  '^Keychain Access$',
  '^Credential Manager$',
] as const;

/** Most rules one source (a setting's list, a repeated `record` option) may give: each title rule
 * runs on every window title. */
export const MAX_EXCLUSION_RULES = 100;
/** Longest application name or title pattern, in characters. */
export const MAX_EXCLUSION_PATTERN_LENGTH = 500;

/** One exclusion rule and where it came from (named in errors). */
export type ExclusionRule = {
  kind: 'app' | 'title';
  /** An application name (`app`) or a regular expression (`title`). */
  pattern: string;
  /** The option or setting it came from: `--exclude-title`, `privacy.excludeTitles`, `default`. */
  source: string;
};

/** Where the user's rules come from: settings and the `record` options. */
export type ExclusionSources = {
  /** Settings (`privacy.excludeApps`, `privacy.excludeTitles`, `privacy.useDefaultExclusions`). */
  settings?: {
    excludeApps?: readonly string[];
    excludeTitles?: readonly string[];
    useDefaultExclusions?: boolean;
  };
  /** `record --exclude-app NAME` (repeatable). */
  excludeApps?: readonly string[];
  /** `record --exclude-title REGEX` (repeatable). */
  excludeTitles?: readonly string[];
};

/** What a rule is matched against: the window as the active-window tracker describes it. */
export type WindowIdentity = {
  title: string | null;
  /** WM_CLASS class on X11, the application name on macOS/Windows. */
  app: string | null;
  /** WM_CLASS instance on X11. */
  appInstance?: string | null;
  /** The owning process's name (`/proc/<pid>/comm`, `KeePass.exe`). */
  processName?: string | null;
};

/** A match: `rule` names the rule that excluded the window (`app:KeePassXC`, `title:/…/`). */
export type ExclusionVerdict = { excluded: boolean; rule?: string };

/** Compiled rules. */
export type ExclusionMatcher = {
  /** The rules' names, in the order they are tried. */
  readonly rules: readonly string[];
  /** True when no rule is set (capture then skips every exclusion check). */
  readonly isEmpty: boolean;
  isExcluded(window: WindowIdentity): ExclusionVerdict;
};

/** The rules of `sources`, defaults first (unless `useDefaultExclusions` is false). */
export function exclusionRules(sources: ExclusionSources): ExclusionRule[] {
  const s = sources.settings ?? {};
  const rules: ExclusionRule[] = [];
  if (s.useDefaultExclusions !== false) {
    rules.push(...DEFAULT_EXCLUDED_APPS.map((p) => app(p, 'default')));
    rules.push(...DEFAULT_EXCLUDED_TITLES.map((p) => title(p, 'default')));
  }
  rules.push(...userRules(s.excludeApps, app, 'privacy.excludeApps'));
  rules.push(...userRules(s.excludeTitles, title, 'privacy.excludeTitles'));
  rules.push(...userRules(sources.excludeApps, app, '--exclude-app'));
  rules.push(...userRules(sources.excludeTitles, title, '--exclude-title'));
  return rules;
}

// The rules of one source; more than MAX_EXCLUSION_RULES is refused (EXCLUSION_RULE_INVALID).
function userRules(
  patterns: readonly string[] | undefined,
  make: (pattern: string, source: string) => ExclusionRule,
  source: string,
): ExclusionRule[] {
  const list = patterns ?? [];
  if (list.length > MAX_EXCLUSION_RULES) {
    throw new AppError(
      'EXCLUSION_RULE_INVALID',
      `${source} has ${list.length} rules; at most ${MAX_EXCLUSION_RULES} are allowed (each one is checked against every window the recorder sees).`,
      { option: source, field: source, count: list.length },
      `Give ${source} at most ${MAX_EXCLUSION_RULES} rules: join title patterns that belong together into one (e.g. "Bank|Payroll").`,
    );
  }
  return list.map((pattern) => make(pattern, source));
}

function app(pattern: string, source: string): ExclusionRule {
  return { kind: 'app', pattern, source };
}

function title(pattern: string, source: string): ExclusionRule {
  return { kind: 'title', pattern, source };
}

/** Throws EXCLUSION_RULE_INVALID unless `pattern` is a usable rule of its kind. */
export function checkExclusionRule(rule: ExclusionRule): void {
  if (rule.pattern.trim() === '') {
    throw new AppError(
      'EXCLUSION_RULE_INVALID',
      `${rule.source}: an empty ${rule.kind === 'app' ? 'application name' : 'title pattern'} would exclude nothing.`,
      { option: rule.source, pattern: rule.pattern },
      rule.kind === 'app'
        ? `Give ${rule.source} an application name (WM_CLASS or process name), e.g. ${rule.source === '--exclude-app' ? '--exclude-app keepassxc' : '"keepassxc"'}.`
        : `Give ${rule.source} a regular expression, e.g. ${rule.source === '--exclude-title' ? "--exclude-title 'Online Banking'" : '"Online Banking"'}.`,
    );
  }
  if (rule.pattern.length > MAX_EXCLUSION_PATTERN_LENGTH) {
    throw new AppError(
      'EXCLUSION_RULE_INVALID',
      `${rule.source}: a rule of ${rule.pattern.length} characters is too long (at most ${MAX_EXCLUSION_PATTERN_LENGTH}).`,
      { option: rule.source, pattern: rule.pattern.slice(0, 100) },
      `Shorten the rule given to ${rule.source}, or split it into several rules.`,
    );
  }
  if (rule.kind === 'title') {
    compileTitle(rule);
  }
}

/** A compiled title rule. */
type TitlePattern = { test: (title: string) => boolean };

// A title rule's regular expression (case-insensitive, linear-time); a bad one is a coded error.
function compileTitle(rule: ExclusionRule): TitlePattern {
  try {
    return RE2JS.compile(rule.pattern, RE2JS.CASE_INSENSITIVE);
  } catch (e) {
    // RE2's message quotes the pattern with the case-insensitive flag it was given as (?i)
    const reason = (e as Error).message
      .replace(/^error parsing regexp: /, '')
      .replace('`(?i)', '`');
    throw new AppError(
      'EXCLUSION_RULE_INVALID',
      `${rule.source} "${rule.pattern}" is not a title pattern the recorder can run: ${reason}.`,
      { option: rule.source, pattern: rule.pattern },
      `Fix the pattern given to ${rule.source} (a regular expression matched case-insensitively anywhere in the title, in RE2 syntax: no backreferences such as \\1 and no lookaround such as (?=…), which cannot be checked in linear time; escape literal characters such as ( [ * + ? with a backslash).`,
    );
  }
}

/** Folds an application name for comparison: lower case, without `.exe`/`.app`. */
function foldApp(name: string): string {
  return name
    .trim()
    .toLowerCase()
    .replace(/\.(exe|app)$/, '');
}

/** Compiles `rules` (each checked: a bad one throws EXCLUSION_RULE_INVALID naming its option). */
export function compileExclusions(rules: readonly ExclusionRule[]): ExclusionMatcher {
  rules.forEach(checkExclusionRule);
  const apps = new Map<string, string>();
  const titles: { re: TitlePattern; name: string }[] = [];
  for (const rule of rules) {
    if (rule.kind === 'app') {
      const key = foldApp(rule.pattern);
      if (!apps.has(key)) {
        apps.set(key, `app:${rule.pattern.trim()}`);
      }
    } else {
      titles.push({ re: compileTitle(rule), name: `title:/${rule.pattern}/` });
    }
  }
  const names = [...apps.values(), ...titles.map((t) => t.name)];
  return {
    rules: names,
    isEmpty: names.length === 0,
    isExcluded(window: WindowIdentity): ExclusionVerdict {
      for (const candidate of [window.app, window.appInstance, window.processName]) {
        const rule = candidate ? apps.get(foldApp(candidate)) : undefined;
        if (rule !== undefined) {
          return { excluded: true, rule };
        }
      }
      if (window.title !== null && window.title !== '') {
        const hit = titles.find((t) => t.re.test(window.title as string));
        if (hit) {
          return { excluded: true, rule: hit.name };
        }
      }
      return { excluded: false };
    },
  };
}
