// Exclusion rules at capture: compiling (bad patterns refused with the option and the fix) and
// matching windows by application and by title, defaults included.
import { describe, expect, it } from 'vitest';
import {
  compileExclusions,
  exclusionRules,
  type ExclusionMatcher,
} from '../../../src/recorder/privacy/exclusion';
import { AppError } from '../../../src/shared/errors';

const win = (title: string | null, app: string | null = null, extra = {}) => ({
  title,
  app,
  appInstance: null,
  ...extra,
});

function errorOf(fn: () => unknown): AppError {
  try {
    fn();
  } catch (e) {
    return e as AppError;
  }
  throw new Error('expected a throw');
}

describe('default exclusions', () => {
  const m: ExclusionMatcher = compileExclusions(exclusionRules({}));

  it.each([
    ['KeePassXC', 'keepassxc'],
    ['1Password', '1password'],
    ['Bitwarden', 'Bitwarden'],
    ['LastPass', 'lastpass'],
    ['Dashlane', 'Dashlane'],
    ['Enpass', 'enpass'],
    ['KeePass', 'KeePass2'],
    ['Seahorse', 'seahorse'],
    ['Keychain Access', 'Keychain Access'],
  ])('excludes the password manager %s (app %s)', (_name, app) => {
    expect(m.isExcluded(win('Database', app)).excluded).toBe(true);
  });

  it('matches WM_CLASS instance and process names too, ignoring case and .exe', () => {
    expect(m.isExcluded(win('x', 'Other', { appInstance: 'KEEPASSXC' }))).toEqual({
      excluded: true,
      rule: 'app:KeePassXC',
    });
    expect(m.isExcluded(win('x', null, { processName: 'KeePass.exe' })).excluded).toBe(true);
    expect(m.isExcluded(win('x', null, { processName: 'bitwarden' })).excluded).toBe(true);
  });

  it.each([
    'Mozilla Firefox Private Browsing',
    'New Tab - Google Chrome (Incognito)',
    'New tab - Profile 1 - Microsoft\u200b Edge [InPrivate]',
    'Private Window — Safari',
    'Passwords and Keys',
    'Credential Manager',
  ])('excludes the window titled %j', (title) => {
    expect(m.isExcluded(win(title, 'firefox')).excluded).toBe(true);
  });

  it.each([
    ['Inbox - Thunderbird', 'thunderbird'],
    ['Private notes.txt - gedit', 'gedit'],
    ['incognitos.md - Visual Studio Code', 'Code'],
    ['KeePassXC release notes - Mozilla Firefox', 'firefox'],
    ['Password reset - GitHub', 'firefox'],
  ])('keeps %j (%s)', (title, app) => {
    expect(m.isExcluded(win(title, app))).toEqual({ excluded: false });
  });

  it('keeps a window with neither title nor app', () => {
    expect(m.isExcluded(win(null, null)).excluded).toBe(false);
  });
});

describe('user rules', () => {
  it('adds settings and options to the defaults, and drops the defaults when asked', () => {
    const rules = exclusionRules({
      settings: { excludeApps: ['Signal'], excludeTitles: ['Bank'], useDefaultExclusions: false },
      excludeApps: ['gtk-form.py'],
      excludeTitles: ['^Secret \\d+$'],
    });
    expect(rules.map((r) => `${r.source} ${r.kind} ${r.pattern}`)).toEqual([
      'privacy.excludeApps app Signal',
      'privacy.excludeTitles title Bank',
      '--exclude-app app gtk-form.py',
      '--exclude-title title ^Secret \\d+$',
    ]);
    const m = compileExclusions(rules);
    expect(m.isExcluded(win('KeePassXC', 'KeePassXC')).excluded).toBe(false); // no defaults
    expect(m.isExcluded(win('chat', 'signal'))).toEqual({ excluded: true, rule: 'app:Signal' });
    expect(m.isExcluded(win('My bank - Firefox', 'firefox'))).toEqual({
      excluded: true,
      rule: 'title:/Bank/',
    });
    expect(m.isExcluded(win('secret 42', 'xterm')).excluded).toBe(true);
    expect(m.isExcluded(win('Secret 42 more', 'xterm')).excluded).toBe(false);
    expect(m.isExcluded(win('form', 'Gtk-form.py', { appInstance: 'gtk-form.py' })).rule).toBe(
      'app:gtk-form.py',
    );
    expect(m.rules).toHaveLength(4);
  });

  it('an app name matches the whole name, not a part of it', () => {
    const m = compileExclusions(
      exclusionRules({ excludeApps: ['pass'], settings: { useDefaultExclusions: false } }),
    );
    expect(m.isExcluded(win('x', 'keepassxc')).excluded).toBe(false);
    expect(m.isExcluded(win('x', 'Pass')).excluded).toBe(true);
  });

  it('is empty without defaults and rules', () => {
    const m = compileExclusions(exclusionRules({ settings: { useDefaultExclusions: false } }));
    expect(m.isEmpty).toBe(true);
    expect(m.isExcluded(win('Private Browsing', 'KeePassXC')).excluded).toBe(false);
  });

  it('refuses a bad regular expression naming the option and the fix', () => {
    const e = errorOf(() => compileExclusions(exclusionRules({ excludeTitles: ['Bank (online'] })));
    expect(e).toBeInstanceOf(AppError);
    expect(e.code).toBe('EXCLUSION_RULE_INVALID');
    expect(e.message).toContain('--exclude-title "Bank (online"');
    expect(e.details).toEqual({ option: '--exclude-title', pattern: 'Bank (online' });
    expect(e.fix).toMatch(/--exclude-title.*escape/);
    const s = errorOf(() =>
      compileExclusions(exclusionRules({ settings: { excludeTitles: ['[a-'] } })),
    );
    expect(s.message).toContain('privacy.excludeTitles');
  });

  it('refuses an empty application name', () => {
    const e = errorOf(() => compileExclusions(exclusionRules({ excludeApps: ['  '] })));
    expect(e.code).toBe('EXCLUSION_RULE_INVALID');
    expect(e.fix).toContain('--exclude-app keepassxc');
  });
});
