// Passwords (argon2id), one-time passwords, API token format and the role check
// (src/hub/auth). Token storage and revocation against a database: tests/hub/db/hub-db.test.ts.
import { describe, expect, it } from 'vitest';
import {
  generateOneTimePassword,
  hashPassword,
  ONE_TIME_PASSWORD_BITS,
  verifyPassword,
} from '../../../src/hub/auth/passwords';
import { requireMethodRole, requireRole, type RoleTable } from '../../../src/hub/auth/roles';
import { generateApiToken, tokenSha256 } from '../../../src/hub/auth/tokens';
import { userNameProblem } from '../../../src/shared/contract/hub';

describe('hub auth', () => {
  it('argon2id with the library defaults: verify accepts the password only; a bad hash is false, not a throw', async () => {
    const hash = await hashPassword('correct horse');
    expect(hash).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$[A-Za-z0-9+/]+\$[A-Za-z0-9+/]+$/);
    expect(await hashPassword('correct horse')).not.toBe(hash); // salted
    expect(await verifyPassword(hash, 'correct horse')).toBe(true);
    expect(await verifyPassword(hash, 'correct horsf')).toBe(false);
    expect(await verifyPassword(hash, '')).toBe(false);
    expect(await verifyPassword('not a hash', 'correct horse')).toBe(false);
  });

  it('one-time passwords: readable groups, ≥ 100 bits, no look-alike characters, all different', () => {
    expect(ONE_TIME_PASSWORD_BITS).toBeGreaterThanOrEqual(100);
    const seen = new Set<string>();
    for (let i = 0; i < 200; i += 1) {
      const p = generateOneTimePassword();
      expect(p).toMatch(/^[a-z2-9]{4}(-[a-z2-9]{4}){5}$/);
      expect(p).not.toMatch(/[01ilo]/);
      seen.add(p);
    }
    expect(seen.size).toBe(200);
  });

  it('API tokens: prefixed, 256 random bits, stored as a 64-hex SHA-256', () => {
    const a = generateApiToken();
    const b = generateApiToken();
    expect(a).toMatch(/^cuah_[A-Za-z0-9_-]{43}$/);
    expect(a).not.toBe(b);
    expect(tokenSha256(a)).toMatch(/^[0-9a-f]{64}$/);
    expect(tokenSha256(a)).not.toBe(tokenSha256(b));
  });

  it('requireRole: no caller or a removed one → UNAUTHORIZED; none of the roles → FORBIDDEN naming what is needed; a match returns the caller', () => {
    const reviewer = { name: 'rita', roles: ['reviewer', 'annotator'] as const };
    expect(requireRole(reviewer, ['reviewer'])).toBe(reviewer);
    expect(requireRole(reviewer, ['admin', 'annotator'])).toBe(reviewer);
    expect(() => requireRole(null, ['annotator'])).toThrow(
      expect.objectContaining({ code: 'UNAUTHORIZED' }),
    );
    expect(() => requireRole({ ...reviewer, disabledAtMs: 1 }, ['reviewer'])).toThrow(
      expect.objectContaining({ code: 'UNAUTHORIZED' }),
    );
    expect(() => requireRole(reviewer, ['admin'], 'team:list')).toThrow(
      expect.objectContaining({
        code: 'FORBIDDEN',
        message: 'rita may not do team:list: it needs admin (has reviewer, annotator)',
      }),
    );
    expect(() => requireRole(reviewer, [])).toThrow(expect.objectContaining({ code: 'FORBIDDEN' }));

    const table: RoleTable<'review:next' | 'team:list'> = {
      'review:next': ['reviewer'],
      'team:list': ['admin'],
    };
    expect(requireMethodRole(table, 'review:next', reviewer)).toBe(reviewer);
    expect(() => requireMethodRole(table, 'team:list', reviewer)).toThrow(
      expect.objectContaining({ code: 'FORBIDDEN' }),
    );
  });

  it('account names: lower-case, digits, . _ -, at most 64 characters', () => {
    expect(userNameProblem('alice')).toBeNull();
    expect(userNameProblem('j.doe_2-x')).toBeNull();
    for (const bad of ['', 'Alice', 'a b', '-x', '.x', 'é', 'x'.repeat(65), 'a/b']) {
      expect(userNameProblem(bad)).toEqual(expect.any(String));
    }
  });
});
