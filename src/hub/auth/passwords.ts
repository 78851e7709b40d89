// Passwords: argon2id hashes (@node-rs/argon2's defaults: m=19456 KiB, t=2, p=1, the OWASP
// minimum; ~15 ms a hash here) and readable one-time passwords. docs/team-mode.md §5.
import { randomInt } from 'node:crypto';
import { hash, verify } from '@node-rs/argon2';

// letters and digits without the look-alikes (0/o, 1/l/i): read aloud or typed from a screen
const ONE_TIME_ALPHABET = 'abcdefghjkmnpqrstuvwxyz23456789';
/** Characters of a one-time password: 24 × log2(31) ≈ 118.9 bits. */
export const ONE_TIME_PASSWORD_CHARS = 24;
const GROUP = 4;

/** The argon2id hash (PHC string) of `password`. */
export async function hashPassword(password: string): Promise<string> {
  // the library's default algorithm is argon2id (its `Algorithm` is a const enum, which
  // verbatimModuleSyntax cannot import); tests/hub/auth/auth.test.ts checks the $argon2id$ prefix
  return await hash(password);
}

/** True when `password` matches the argon2id hash; false for a wrong password or a bad hash. */
export async function verifyPassword(passwordHash: string, password: string): Promise<boolean> {
  try {
    return await verify(passwordHash, password);
  } catch {
    return false;
  }
}

/** A random one-time password of ≥ 100 bits in groups of four (`abcd-efgh-…`), for a new
 * account or a reset; the holder must change it at the first sign-in. */
export function generateOneTimePassword(): string {
  let out = '';
  for (let i = 0; i < ONE_TIME_PASSWORD_CHARS; i += 1) {
    if (i > 0 && i % GROUP === 0) {
      out += '-';
    }
    // randomInt draws without modulo bias
    out += ONE_TIME_ALPHABET[randomInt(ONE_TIME_ALPHABET.length)];
  }
  return out;
}

/** Entropy of a one-time password in bits. */
export const ONE_TIME_PASSWORD_BITS = ONE_TIME_PASSWORD_CHARS * Math.log2(ONE_TIME_ALPHABET.length);
