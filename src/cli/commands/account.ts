// `cua-annotator tokens list|create NAME|revoke ID` and `cua-annotator audit`: the signed-in
// account's API tokens and (admins) the hub's audit log, through the token `login` stored beside
// the library (docs/team-mode.md §14).
import {
  createHubToken,
  listHubAudit,
  listHubTokens,
  resolveLibraryDir,
  revokeHubToken,
} from '../../services/create-services';
import { parseCommandArgs, UsageError } from '../args';
import type { Command } from '../command';
import { out, outJson } from '../output';

const TOKENS_HELP = `Usage: cua-annotator tokens list [--json] [--library DIR]
       cua-annotator tokens create NAME [--json] [--library DIR]
       cua-annotator tokens revoke ID [--json] [--library DIR]

The API tokens of the account this library is signed in to (cua-annotator login).

tokens list      every token of yours: id, name, created, last used, revoked; the one this
                 library uses is marked (--json: {"tokens":[{"id","name","createdAtMs",
                 "lastUsedAtMs","revokedAtMs","isThisLibrary"}]})
tokens create    a new token named NAME (for a script or another machine), printed once: the
                 hub keeps only its SHA-256 (--json: {"id","name","token"})
tokens revoke    revokes token ID at once (--json: {"id","revoked"}); this library's own token
                 is revoked with \`cua-annotator logout\`

Options:
  --json           machine-readable output
  --library DIR    the signed-in library (default as for every command)
  -h, --help       show this help`;

const AUDIT_HELP = `Usage: cua-annotator audit [--actor NAME] [--action A] [--limit N] [--json] [--library DIR]

The hub's audit log, newest first (admins only): who changed what, when, from which client
(cli, app, web, api) and address.

Options:
  --actor NAME     only changes made by NAME (an account, or anonymous@ADDRESS)
  --action A       only action A (e.g. token.revoke), or every action of a domain (token, user,
                   auth, submission, review)
  --limit N        at most N entries, 1–1000 (default 100)
  --json           print {"entries":[{"id","atMs","actor","action","target","client","details"}]}
  --library DIR    the signed-in library (default as for every command)
  -h, --help       show this help`;

const iso = (ms: number | null): string => (ms === null ? '-' : new Date(ms).toISOString());

function positiveInt(value: string, what: string, max = Number.MAX_SAFE_INTEGER): number {
  const n = Number(value);
  if (!/^\d+$/.test(value) || !Number.isSafeInteger(n) || n < 1 || n > max) {
    throw new UsageError(`${what} must be an integer from 1 to ${max} (got "${value}")`);
  }
  return n;
}

/** The `tokens` command. */
export const tokensCommand: Command = {
  name: 'tokens',
  summary: 'your hub API tokens: list, create NAME, revoke ID',
  help: TOKENS_HELP,
  run: async (argv) => {
    const { values, positionals } = parseCommandArgs(argv, { json: { type: 'boolean' } });
    if (values.help) {
      out(TOKENS_HELP);
      return 0;
    }
    const [sub, ...rest] = positionals;
    const libraryDir = resolveLibraryDir({ flag: values.library }).dir;
    if (sub === 'list') {
      if (rest.length) {
        throw new UsageError('tokens list takes no arguments');
      }
      const tokens = await listHubTokens(libraryDir);
      if (values.json) {
        outJson({ tokens });
      } else if (!tokens.length) {
        out('no tokens');
      } else {
        for (const t of tokens) {
          out(
            `${t.id}\t${t.name}\tcreated ${iso(t.createdAtMs)}\tlast used ${iso(t.lastUsedAtMs)}` +
              (t.revokedAtMs !== null ? `\trevoked ${iso(t.revokedAtMs)}` : '') +
              (t.isThisLibrary ? '\t(this library)' : ''),
          );
        }
      }
      return 0;
    }
    if (sub === 'create') {
      const [name, ...extra] = rest;
      if (!name || extra.length) {
        throw new UsageError('tokens create NAME (one name)');
      }
      const created = await createHubToken(libraryDir, name);
      if (values.json) {
        outJson(created);
      } else {
        out(`token ${created.id} "${created.name}" (shown once, keep it secret):`);
        out(created.token);
      }
      return 0;
    }
    if (sub === 'revoke') {
      const [id, ...extra] = rest;
      if (!id || extra.length) {
        throw new UsageError('tokens revoke ID (one id, from `tokens list`)');
      }
      const revoked = await revokeHubToken(libraryDir, positiveInt(id, 'the token id'));
      if (values.json) {
        outJson(revoked);
      } else {
        out(
          revoked.revoked
            ? `token ${revoked.id} revoked`
            : `token ${revoked.id} was revoked already`,
        );
      }
      return 0;
    }
    throw new UsageError('tokens list | tokens create NAME | tokens revoke ID');
  },
};

/** The `audit` command. */
export const auditCommand: Command = {
  name: 'audit',
  summary: 'the hub’s audit log (admins): --actor, --action, --limit',
  help: AUDIT_HELP,
  run: async (argv) => {
    const { values, positionals } = parseCommandArgs(argv, {
      actor: { type: 'string' },
      action: { type: 'string' },
      limit: { type: 'string' },
      json: { type: 'boolean' },
    });
    if (values.help) {
      out(AUDIT_HELP);
      return 0;
    }
    if (positionals.length) {
      throw new UsageError('audit takes no arguments (filter with --actor, --action, --limit)');
    }
    const entries = await listHubAudit(resolveLibraryDir({ flag: values.library }).dir, {
      ...(values.actor !== undefined ? { actor: values.actor } : {}),
      ...(values.action !== undefined ? { action: values.action } : {}),
      ...(values.limit !== undefined ? { limit: positiveInt(values.limit, '--limit', 1000) } : {}),
    });
    if (values.json) {
      outJson({ entries });
    } else if (!entries.length) {
      out('no audit entries');
    } else {
      for (const e of entries) {
        out(
          `${iso(e.atMs)}\t${e.actor}\t${e.action}\t${e.target ?? '-'}\t${e.client}` +
            (typeof e.details.address === 'string' ? `\t${e.details.address}` : ''),
        );
      }
    }
    return 0;
  },
};
