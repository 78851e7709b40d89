// `cua-annotator login URL --user NAME --password-stdin`, `logout`, `whoami`: the CLI's sign-in
// to a team hub. The password comes on standard input (never on the command line, where `ps`
// and shell history see it); the CLI keeps an API token named after this machine in a 0600 file
// beside the library (src/services/team/credentials.ts). docs/team-mode.md §12.
import {
  credentialsPath,
  loginToHub,
  logoutFromHub,
  resolveLibraryDir,
  whoAmI,
} from '../../services/create-services';
// the team client is no library service: the CLI calls it directly (it only speaks HTTP)
import { parseCommandArgs, UsageError } from '../args';
import type { Command } from '../command';
import { out } from '../output';

const LOGIN_HELP = `Usage: cua-annotator login URL --user NAME --password-stdin [--new-password] [--library DIR] [--json]

Signs this library in to the team hub at URL: checks the password (read from the first line of
standard input), creates an API token named cli@<this machine> and stores it, readable by you
only (mode 0600), in <library>.hub-credentials.json beside the library folder (never inside it,
so no export or upload carries it). Later team commands use that token; \`logout\` revokes it.

An account made by \`hub user add\` starts with a one-time password that must be changed: give
--new-password and put the one-time password on the first line of standard input and the new
one (at least 12 characters) on the second.

  printf '%s\\n' "$PASSWORD" | cua-annotator login https://hub.example.org --user alice --password-stdin

Options:
  --user NAME        the account name
  --password-stdin   read the password from standard input (required: never on the command line)
  --new-password     change a one-time password: the new one is the second line of input
  --library DIR      the library to sign in (default as for every command)
  --json             print {"url","user","roles","credentials"}
  -h, --help         show this help

For a hub with a self-signed certificate set NODE_EXTRA_CA_CERTS to its certificate (PEM).`;

const LOGOUT_HELP = `Usage: cua-annotator logout [--library DIR] [--json]

Revokes this library's API token on the hub (it stops working at once) and deletes the
credentials file beside the library. A token the hub no longer accepts is forgotten too; if the
hub cannot be reached the file stays, so you can try again.`;

const WHOAMI_HELP = `Usage: cua-annotator whoami [--library DIR] [--json]

Asks the hub this library is signed in to who its token belongs to: prints the account and its
roles (--json: {"url","user","roles"}).`;

async function readStdin(): Promise<string> {
  if (process.stdin.isTTY) {
    throw new UsageError(
      '--password-stdin reads the password from standard input: pipe it in (printf ... | login …)',
    );
  }
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) {
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** The `login` command. */
export const loginCommand: Command = {
  name: 'login',
  summary: 'sign this library in to a team hub (API token in a 0600 file beside it)',
  help: LOGIN_HELP,
  run: async (argv) => {
    const { values, positionals } = parseCommandArgs(argv, {
      user: { type: 'string' },
      'password-stdin': { type: 'boolean' },
      'new-password': { type: 'boolean' },
      json: { type: 'boolean' },
    });
    if (values.help) {
      out(LOGIN_HELP);
      return 0;
    }
    const [url, ...extra] = positionals;
    if (!url || extra.length) {
      throw new UsageError('login takes one hub address: login URL --user NAME --password-stdin');
    }
    if (!values.user) {
      throw new UsageError('give the account name: --user NAME');
    }
    if (!values['password-stdin']) {
      throw new UsageError(
        'give --password-stdin and pipe the password in (never on the command line)',
      );
    }
    const lines = (await readStdin()).split(/\r?\n/);
    const password = lines[0] ?? '';
    const newPassword = values['new-password'] ? (lines[1] ?? '') : undefined;
    if (!password) {
      throw new UsageError('standard input held no password (its first line is empty)');
    }
    if (newPassword === '') {
      throw new UsageError('--new-password: the second line of standard input is empty');
    }
    const libraryDir = resolveLibraryDir({ flag: values.library }).dir;
    const result = await loginToHub({
      url,
      user: values.user,
      password,
      newPassword,
      libraryDir,
    });
    if (values.json) {
      out(
        JSON.stringify({
          url: result.url,
          user: result.user,
          roles: result.roles,
          credentials: result.file,
        }),
      );
    } else {
      out(`Signed in to ${result.url} as ${result.user} (${result.roles.join(', ')}).`);
      if (result.passwordChanged) {
        out('The one-time password was changed.');
      }
      out(`API token "${result.tokenName}" stored in ${result.file} (readable by you only).`);
    }
    return 0;
  },
};

/** The `logout` command. */
export const logoutCommand: Command = {
  name: 'logout',
  summary: 'revoke this library’s hub token and forget it',
  help: LOGOUT_HELP,
  run: async (argv) => {
    const { values, positionals } = parseCommandArgs(argv, { json: { type: 'boolean' } });
    if (values.help) {
      out(LOGOUT_HELP);
      return 0;
    }
    if (positionals.length) {
      throw new UsageError('logout takes no arguments');
    }
    const libraryDir = resolveLibraryDir({ flag: values.library }).dir;
    const result = await logoutFromHub(libraryDir);
    if (values.json) {
      out(JSON.stringify({ ...result, credentials: credentialsPath(libraryDir) }));
    } else {
      out(
        result.revoked
          ? `Signed out of ${result.url}: the token of ${result.user} is revoked.`
          : `Signed out of ${result.url}: the hub no longer accepted the token of ${result.user}.`,
      );
    }
    return 0;
  },
};

/** The `whoami` command. */
export const whoamiCommand: Command = {
  name: 'whoami',
  summary: 'the hub account this library is signed in as',
  help: WHOAMI_HELP,
  run: async (argv) => {
    const { values, positionals } = parseCommandArgs(argv, { json: { type: 'boolean' } });
    if (values.help) {
      out(WHOAMI_HELP);
      return 0;
    }
    if (positionals.length) {
      throw new UsageError('whoami takes no arguments');
    }
    const me = await whoAmI(resolveLibraryDir({ flag: values.library }).dir);
    if (values.json) {
      out(JSON.stringify({ url: me.url, user: me.user, roles: me.roles }));
    } else {
      out(`${me.user} (${me.roles.join(', ')}) at ${me.url}`);
    }
    return 0;
  },
};
