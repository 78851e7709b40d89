// The team hub's shared vocabulary (docs/team-mode.md): roles and account-name rules, for the hub,
// its CLI and (later) the team client and pages. The hub's methods and DTOs join this file with
// the hub's HTTP API (issue 27, next part).

/** Roles a hub account can hold; a person may hold several. */
export const HUB_ROLES = ['annotator', 'reviewer', 'admin'] as const;

/** One of {@link HUB_ROLES}. */
export type HubRole = (typeof HUB_ROLES)[number];

/** True when `value` names a hub role. */
export function isHubRole(value: unknown): value is HubRole {
  return typeof value === 'string' && (HUB_ROLES as readonly string[]).includes(value);
}

/** Longest account name, in characters. */
export const HUB_USER_NAME_MAX = 64;

// lower-case letters, digits, '.', '_', '-'; starts with a letter or digit: safe in URLs, file
// names and log lines, and one spelling per person (no case twins)
const USER_NAME_PATTERN = /^[a-z0-9][a-z0-9._-]*$/;

/** Why `name` cannot name a hub account, or null when it can. */
export function userNameProblem(name: string): string | null {
  if (!name) {
    return 'an account name cannot be empty';
  }
  if (name.length > HUB_USER_NAME_MAX) {
    return `an account name has at most ${HUB_USER_NAME_MAX} characters (got ${name.length})`;
  }
  if (!USER_NAME_PATTERN.test(name)) {
    return (
      `"${name}" is not an account name: use lower-case letters, digits, '.', '_' and '-', ` +
      'starting with a letter or digit'
    );
  }
  return null;
}
