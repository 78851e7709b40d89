// `cua-annotator hub`: the team hub (docs/team-mode.md). This version has the account commands
// (`hub user …`, hub-user.ts); the server itself comes with the rest of team mode.
import { UsageError } from '../args';
import type { Command } from '../command';
import { out } from '../output';
import { HUB_USER_HELP, runHubUser } from './hub-user';

const HELP = `Usage: cua-annotator hub user add|roles|password|remove|list … (--data DIR | --database URL)

The team hub: accounts and roles for annotators, reviewers and admins on several machines
(docs/team-mode.md). Its data lives in a folder (--data DIR: an embedded PostgreSQL, no other
server) or in PostgreSQL 15 or newer (--database URL).

Commands:
  hub user …    manage accounts, whether the hub runs or not (hub user --help)

Starting the team server itself (\`cua-annotator hub --data DIR\`) is not in this version yet.

${HUB_USER_HELP.split('\n').slice(0, 5).join('\n')}`;

/** The `hub` command. */
export const hubCommand: Command = {
  name: 'hub',
  summary:
    'team hub accounts: hub user add|roles|password|remove|list (--data DIR | --database URL)',
  help: HELP,
  run: async (argv) => {
    const [sub, ...rest] = argv;
    if (sub === 'user') {
      return await runHubUser(rest);
    }
    if (sub === undefined || sub === '--help' || sub === '-h' || sub === 'help') {
      out(HELP);
      return sub === undefined ? 1 : 0;
    }
    if (sub.startsWith('-')) {
      throw new UsageError(
        `the team server (\`hub ${sub} …\`) is not in this version yet; \`hub user …\` manages ` +
          'accounts',
      );
    }
    throw new UsageError(`unknown hub command "${sub}" (user)`);
  },
};
