// Secret key and token detector: well-known credential formats by their documented prefixes and
// shapes, and high-entropy strings right after words like "key", "token", "secret" or "password".
import type { PiiMatch } from '../../shared/domain/privacy';
import { shannonEntropy } from './checksums';
import { matchAt } from './text';

/**
 * A format with a fixed shape; `hint` is a substring every match contains (checked first, it
 * is much cheaper than the pattern), `group` picks the secret out of a match with a label.
 */
type SecretFormat = { pattern: RegExp; hint?: string; lowerHint?: string; group?: number };

const FORMATS: readonly SecretFormat[] = [
  // AWS access key ids: a four-letter type prefix (AKIA long-term, ASIA temporary, …) + 16
  {
    pattern:
      /(?<![A-Za-z0-9])(?:AKIA|ASIA|ABIA|ACCA|AGPA|AIDA|AIPA|ANPA|ANVA|AROA|APKA|ASCA)[A-Z0-9]{16}(?![A-Za-z0-9])/g,
    hint: 'A',
  },
  // AWS secret access keys: 40 base64 characters, recognisable only by their label
  {
    pattern:
      /(?:aws_?secret_?access_?key|aws_?secret(?:_?key)?|secret_?access_?key)["']?\s*[:=]\s*["']?([A-Za-z0-9/+]{40})(?![A-Za-z0-9/+=])/gi,
    lowerHint: 'secret',
    group: 1,
  },
  // GitHub tokens: classic ghp_/gho_/ghu_/ghs_/ghr_ + 36, fine-grained github_pat_
  { pattern: /(?<![A-Za-z0-9_])gh[pousr]_[A-Za-z0-9]{36,255}(?![A-Za-z0-9_])/g, hint: 'gh' },
  {
    pattern: /(?<![A-Za-z0-9_])github_pat_[A-Za-z0-9_]{22,255}(?![A-Za-z0-9_])/g,
    hint: 'github_pat_',
  },
  // GitLab personal access tokens
  { pattern: /(?<![A-Za-z0-9_])glpat-[A-Za-z0-9_-]{20,}(?![A-Za-z0-9_-])/g, hint: 'glpat-' },
  // Slack bot, user, app, refresh and legacy tokens
  {
    pattern: /(?<![A-Za-z0-9_])xox[baprs]-[A-Za-z0-9]{6,}(?:-[A-Za-z0-9]{4,})+(?![A-Za-z0-9_-])/g,
    hint: 'xox',
  },
  // Stripe secret and restricted keys (live and test)
  {
    pattern: /(?<![A-Za-z0-9_])(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,247}(?![A-Za-z0-9_])/g,
    hint: 'k_',
  },
  // Google API keys: AIza + 35
  { pattern: /(?<![A-Za-z0-9_-])AIza[0-9A-Za-z_-]{35}(?![A-Za-z0-9_-])/g, hint: 'AIza' },
  // OpenAI- and Anthropic-style keys: sk-, sk-proj-, sk-ant-…; the body must mix letters and digits
  {
    pattern:
      /(?<![A-Za-z0-9_-])sk-(?:proj-|svcacct-|admin-|ant-(?:api|admin)\d\d-)?(?=[A-Za-z0-9_-]*\d)(?=[A-Za-z0-9_-]*[A-Za-z])[A-Za-z0-9_-]{20,}(?![A-Za-z0-9_-])/g,
    hint: 'sk-',
  },
  // JSON Web Tokens: base64url header and payload (both JSON objects, so "eyJ"), signature
  {
    pattern:
      /(?<![A-Za-z0-9_-])eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]*(?![A-Za-z0-9_-])/g,
    hint: 'eyJ',
  },
  // Twilio, SendGrid, npm, PyPI, Hugging Face tokens
  {
    pattern: /(?<![A-Za-z0-9_])SG\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}(?![A-Za-z0-9_-])/g,
    hint: 'SG.',
  },
  { pattern: /(?<![A-Za-z0-9_])npm_[A-Za-z0-9]{36}(?![A-Za-z0-9_])/g, hint: 'npm_' },
  { pattern: /(?<![A-Za-z0-9_])pypi-[A-Za-z0-9_-]{50,}(?![A-Za-z0-9_-])/g, hint: 'pypi-' },
  { pattern: /(?<![A-Za-z0-9_])hf_[A-Za-z0-9]{34,}(?![A-Za-z0-9_])/g, hint: 'hf_' },
];

// a credential word, then a few characters of assignment or quoting, then the value
const LABELLED =
  /(?<![A-Za-z])(?:api[_ -]?key|apikey|access[_ -]?key|secret[_ -]?key|private[_ -]?key|client[_ -]?secret|access[_ -]?token|auth[_ -]?token|refresh[_ -]?token|id[_ -]?token|session[_ -]?token|token|secret|password|passwd|pwd|passphrase|key|bearer|authorization|credentials?)(?![A-Za-z])["']?\s{0,2}(?:[:=]|=>|is|:=)?\s{0,2}["'`]?(?:Bearer\s+|Basic\s+|token\s+)?([A-Za-z0-9][A-Za-z0-9_\-+/=.~!@#$%^&*]{15,})/gi;

/** Substrings of every credential word of {@link LABELLED}, lower case. */
const LABEL_HINTS = ['key', 'token', 'secret', 'pass', 'pwd', 'bearer', 'auth', 'credential'];

/** Minimum Shannon entropy (bits per character) of a labelled value to count as a secret. */
const MIN_ENTROPY = 3.0;

/** True when every piece between separators is a word, an acronym or a short number. */
function isIdentifier(value: string): boolean {
  return value
    .split(/[._\-/]+/)
    .filter((piece) => piece !== '')
    .every((piece) => {
      if (/^\d{1,8}$/.test(piece)) {
        return true;
      }
      // camelCase and PascalCase words, acronyms: "getAccessToken", "HTTPServer", "user"
      if (!/^[A-Za-z]+$/.test(piece)) {
        return false;
      }
      const words = piece.match(/[A-Z]{2,}(?![a-z])|[A-Z]?[a-z]+|[A-Z]/g) ?? [];
      return words.every((word) => word.length >= 3);
    });
}

function looksRandom(value: string): boolean {
  const classes =
    Number(/[a-z]/.test(value)) + Number(/[A-Z]/.test(value)) + Number(/\d/.test(value));
  if (classes < 2) {
    return false;
  }
  // file paths, URLs, code identifiers and file names are labelled but not secret
  if (/^(?:https?:|\/|\.\.?\/|[A-Za-z]:\\)/.test(value) || isIdentifier(value)) {
    return false;
  }
  return shannonEntropy(value) >= MIN_ENTROPY;
}

// PEM private keys (RFC 7468): the header line, and the body up to its footer when the footer
// follows after nothing but base64 lines and RFC 1421 header fields ("Proc-Type: 4,ENCRYPTED")
const PEM_HEADER = /-----BEGIN ((?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?)-----/g;
const PEM_BODY = /^[A-Za-z0-9+/=\s:,-]*$/;

function findPemKeys(text: string, out: PiiMatch[]): void {
  // footer → where it was last found (-1: nowhere after that point), so that many headers
  // without a footer do not each search the rest of the text
  const footers = new Map<string, number>();
  for (const m of text.matchAll(PEM_HEADER)) {
    const headerEnd = m.index + m[0].length;
    const footer = `-----END ${m[1]!}-----`;
    let footerAt = footers.get(footer);
    if (footerAt === undefined || (footerAt >= 0 && footerAt < headerEnd)) {
      footerAt = text.indexOf(footer, headerEnd);
      footers.set(footer, footerAt);
    }
    // the footer must be the next dashed line, so each body is read once
    const whole =
      footerAt >= 0 &&
      text.indexOf('-----', headerEnd) === footerAt &&
      PEM_BODY.test(text.slice(headerEnd, footerAt));
    out.push(matchAt(text, 'secret', m.index, whole ? footerAt + footer.length : headerEnd));
  }
}

/** Secret keys and tokens in `text`. */
export function findSecrets(text: string): PiiMatch[] {
  const out: PiiMatch[] = [];
  if (text.includes('-----BEGIN ')) {
    findPemKeys(text, out);
  }
  const lower = text.toLowerCase();
  for (const { pattern, hint, lowerHint, group } of FORMATS) {
    if (
      (hint !== undefined && !text.includes(hint)) ||
      (lowerHint !== undefined && !lower.includes(lowerHint))
    ) {
      continue;
    }
    for (const m of text.matchAll(pattern)) {
      if (group === undefined) {
        out.push(matchAt(text, 'secret', m.index, m.index + m[0].length));
      } else {
        const value = m[group]!;
        const start = m.index + m[0].lastIndexOf(value);
        out.push(matchAt(text, 'secret', start, start + value.length));
      }
    }
  }
  if (!LABEL_HINTS.some((word) => lower.includes(word))) {
    return out;
  }
  for (const m of text.matchAll(LABELLED)) {
    let value = m[1]!;
    // a URL's next query parameter and sentence punctuation after the value are not part of it
    const nextParameter = /&[A-Za-z_][\w.-]*=/.exec(value);
    if (nextParameter) {
      value = value.slice(0, nextParameter.index);
    }
    value = value.replace(/[.,;!]+$/, '');
    if (value.length < 16 || !looksRandom(value)) {
      continue;
    }
    const start = m.index + m[0].length - m[1]!.length;
    out.push(matchAt(text, 'secret', start, start + value.length));
  }
  return out;
}
