// `cua-annotator hub user add|remove|roles|list`: the hub's accounts, straight in its database, so
// the first admin exists before the first start. With the embedded default a running hub holds
// the data folder (HUB_DATA_LOCKED: use its Team page or stop it); PostgreSQL takes both at once.
import { HUB_ROLES } from '../../shared/contract/hub';
import {
  addUser,
  listUsers,
  localActor,
  removeUser,
  resetPassword,
  setRoles,
} from '../../hub/accounts/accounts';
import { openHubDb, type HubDatabase, type HubDbTarget } from '../../hub/db';
import { parseCommandArgs, UsageError } from '../args';
import { out, outJson } from '../output';

/** Environment variable read when neither --data nor --database is given. */
export const HUB_DATABASE_ENV = 'CUA_ANNOTATOR_HUB_DATABASE';

/** `hub user --help`. */
export const HUB_USER_HELP = `Usage: cua-annotator hub user add NAME --role ROLE [--role ROLE …] (--data DIR | --database URL) [--json]
       cua-annotator hub user roles NAME --set ROLE [--set ROLE …] (--data DIR | --database URL) [--json]
       cua-annotator hub user password NAME (--data DIR | --database URL) [--json]
       cua-annotator hub user remove NAME (--data DIR | --database URL) [--json]
       cua-annotator hub user list [--all] (--data DIR | --database URL) [--json]

Manages the team hub's accounts directly in its database, whether the hub runs or not (make the
first admin this way before the first start). Roles: ${HUB_ROLES.join(', ')} (several per person).

  add      creates the account and prints a one-time password, shown only this once (only its
           argon2id hash is stored); the person must change it at the first sign-in.
           --json prints {"user","roles","password"}
  roles    replaces the account's roles with the --set ones
  password gives the account a new one-time password (a lost one), shown only this once;
           --json prints {"user","password"}
  remove   removes the account: it can no longer sign in and its API tokens stop working at
           once; its name and history stay (submissions, the audit log)
  list     the accounts (--all: with the removed ones)

Every change is written to the hub's audit log (client "cli", actor os:USER@HOST). The last admin
can neither be removed nor lose the admin role.

Where the hub keeps its data (one of):
  --data DIR        the embedded default (PGlite in DIR/pg). A running hub holds DIR to itself:
                    while it runs, change accounts on its Team page, or stop it first
  --database URL    PostgreSQL 15 or newer: postgres://USER@HOST:PORT/DATABASE (leave the
                    password out of the URL and set PGPASSWORD). Else $${HUB_DATABASE_ENV}

Options:
  --role ROLE       (add) a role; repeat for several
  --set ROLE        (roles) a role of the new set; repeat for several
  --all             (list) include removed accounts
  --json            print JSON for scripts
  -h, --help        show this help`;

const USER_OPTIONS = {
  role: { type: 'string', multiple: true },
  set: { type: 'string', multiple: true },
  data: { type: 'string' },
  database: { type: 'string' },
  all: { type: 'boolean' },
  json: { type: 'boolean' },
} as const;

export function targetOf(values: { data?: string; database?: string }): HubDbTarget {
  const url = values.database ?? (values.data ? undefined : process.env[HUB_DATABASE_ENV]);
  if (values.data !== undefined && values.database !== undefined) {
    throw new UsageError('give either --data DIR or --database URL, not both');
  }
  if (values.data !== undefined) {
    if (!values.data) {
      throw new UsageError('--data needs a folder (--data DIR)');
    }
    return { data: values.data };
  }
  if (url) {
    return { url };
  }
  throw new UsageError(
    `say where the hub keeps its data: --data DIR (embedded) or --database URL (PostgreSQL), ` +
      `or set ${HUB_DATABASE_ENV}`,
  );
}

async function withHubDb<T>(
  target: HubDbTarget,
  action: string,
  create: boolean,
  fn: (hub: HubDatabase) => Promise<T>,
): Promise<T> {
  const hub = await openHubDb(target, {
    holder: `cua-annotator hub user ${action}`,
    purpose: 'cli',
    create,
  });
  try {
    return await fn(hub);
  } finally {
    await hub.close();
  }
}

function oneName(action: string, names: string[]): string {
  if (names.length !== 1 || !names[0]) {
    throw new UsageError(`hub user ${action} takes one account name (got ${names.length})`);
  }
  return names[0];
}

function date(ms: number): string {
  return new Date(ms).toISOString().slice(0, 16).replace('T', ' ');
}

/** Runs `hub user …` (argv after `user`); returns the exit code. */
export async function runHubUser(argv: string[]): Promise<number> {
  const { values, positionals } = parseCommandArgs(argv, USER_OPTIONS);
  const [action, ...names] = positionals;
  if (values.help || !action) {
    out(HUB_USER_HELP);
    return action || values.help ? 0 : 1;
  }
  const misplaced = (flag: string, where: string) => {
    throw new UsageError(`--${flag} belongs to \`hub user ${where}\`, not \`hub user ${action}\``);
  };
  if (values.role && action !== 'add') {
    misplaced('role', 'add');
  }
  if (values.set && action !== 'roles') {
    misplaced('set', 'roles');
  }
  if (values.all && action !== 'list') {
    misplaced('all', 'list');
  }
  const by = localActor('cli');
  switch (action) {
    case 'add': {
      const name = oneName(action, names);
      if (!values.role?.length) {
        throw new UsageError(`hub user add needs at least one --role (${HUB_ROLES.join(', ')})`);
      }
      const roles = values.role;
      const target = targetOf(values);
      const added = await withHubDb(target, action, true, (hub) =>
        addUser(hub.db, { name, roles, by }),
      );
      if (values.json) {
        outJson(added);
      } else {
        out(`added ${added.user} (${added.roles.join(', ')})`);
        out(`one-time password: ${added.password}`);
        out(
          `Give it to ${added.user} privately: it is shown only this once and must be changed ` +
            'at the first sign-in.',
        );
      }
      return 0;
    }
    case 'roles': {
      const name = oneName(action, names);
      if (!values.set?.length) {
        throw new UsageError(
          `hub user roles needs the new roles: --set ROLE [--set ROLE …] (${HUB_ROLES.join(', ')})`,
        );
      }
      const roles = values.set;
      const changed = await withHubDb(targetOf(values), action, false, (hub) =>
        setRoles(hub.db, { name, roles, by }),
      );
      if (values.json) {
        outJson({ user: changed.user, roles: changed.roles });
      } else {
        out(`${changed.user}: ${changed.before.join(', ')} → ${changed.roles.join(', ')}`);
      }
      return 0;
    }
    case 'password': {
      const name = oneName(action, names);
      const reset = await withHubDb(targetOf(values), action, false, (hub) =>
        resetPassword(hub.db, { name, by }),
      );
      if (values.json) {
        outJson(reset);
      } else {
        out(`new one-time password for ${reset.user}: ${reset.password}`);
        out(
          `Give it to ${reset.user} privately: it is shown only this once and must be changed ` +
            'at the next sign-in.',
        );
      }
      return 0;
    }
    case 'remove': {
      const name = oneName(action, names);
      const removed = await withHubDb(targetOf(values), action, false, (hub) =>
        removeUser(hub.db, { name, by }),
      );
      if (values.json) {
        outJson({ user: removed.user, removed: true, tokensRevoked: removed.tokensRevoked });
      } else {
        out(
          `removed ${removed.user} (${removed.tokensRevoked} API token` +
            `${removed.tokensRevoked === 1 ? '' : 's'} revoked)`,
        );
      }
      return 0;
    }
    case 'list': {
      if (names.length) {
        throw new UsageError(`hub user list takes no names (got "${names.join(' ')}")`);
      }
      const includeRemoved = Boolean(values.all);
      const users = await withHubDb(targetOf(values), action, false, (hub) =>
        listUsers(hub.db, { includeRemoved }),
      );
      if (values.json) {
        outJson({
          users: users.map((u) => ({
            user: u.name,
            roles: u.roles,
            createdAt: new Date(u.createdAtMs).toISOString(),
            removedAt: u.disabledAtMs === null ? null : new Date(u.disabledAtMs).toISOString(),
            mustChangePassword: u.mustChangePassword,
          })),
        });
        return 0;
      }
      if (!users.length) {
        out(
          'No accounts. Add the first admin with `cua-annotator hub user add NAME --role admin`.',
        );
        return 0;
      }
      const width = Math.max(4, ...users.map((u) => u.name.length));
      out(`${'NAME'.padEnd(width)}  ${'ROLES'.padEnd(28)}  ${'CREATED'.padEnd(16)}  STATUS`);
      for (const u of users) {
        const status =
          u.disabledAtMs !== null
            ? `removed ${date(u.disabledAtMs)}`
            : u.mustChangePassword
              ? 'one-time password'
              : 'active';
        out(
          `${u.name.padEnd(width)}  ${u.roles.join(',').padEnd(28)}  ${date(u.createdAtMs)}  ${status}`,
        );
      }
      return 0;
    }
    default:
      throw new UsageError(
        `unknown hub user action "${action}" (add, roles, password, remove, list)`,
      );
  }
}
