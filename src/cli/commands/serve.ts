// `cua-annotator serve`: the browser review UI over the library (HTTP binding of the contract).
import fs from 'node:fs';
import path from 'node:path';
import {
  bindPolicyError,
  createEventHub,
  createServer,
  createSessionPath,
  DEFAULT_HOST,
  defaultRendererDir,
  isLoopbackHost,
  mediaPath,
  PASSWORD_ENV,
} from '../../server';
import { resolveLibraryDir } from '../../services/create-services';
import { UsageError } from '../args';
import { defineCommand, type Command } from '../command';
import { untilSignal } from '../signals';
import { withServices } from '../context';
import { errLine, out } from '../output';

const HELP = `Usage: cua-annotator serve [--host 127.0.0.1] [--port 0] [--library DIR] [--allow-remote]
                           [--export-root DIR] [--open]

Serves the review UI and its API to a browser. Prints a URL with a fresh random token under a
fresh random path (/s/…/); opening it stores the token in a cookie this browser sends only to
that path of this server (never to other servers on this machine). Every /api and /media request
needs the token, and only Host 127.0.0.1/localhost/[::1] is answered. Runs until Ctrl+C (SIGINT)
or SIGTERM.

Options:
  --host ADDR       interface to listen on (default ${DEFAULT_HOST}); anything but loopback also
                    needs --allow-remote and the ${PASSWORD_ENV} environment variable
  --port N          TCP port (default 0: any free port)
  --allow-remote    allow a non-loopback --host; every request then needs the password (HTTP
                    Basic, any user name). Traffic is not encrypted: prefer an SSH tunnel
                    (ssh -L 8080:127.0.0.1:<port> host) to the default loopback bind
  --export-root DIR the folder remote clients (anything but a browser on this machine talking to
                    a loopback server) may export under; without it they cannot export at all
                    (FORBIDDEN), and no output folder outside it is accepted (.. and symbolic
                    links resolved)
  --renderer DIR    built renderer to serve (default out/renderer; npm run build:renderer)
  --open            open the URL in the default browser
  --library DIR     library folder. With none at the default location (a new annotator), serve
                    creates it there, as record and the desktop app do, so the Record page can
                    be reached; a --library or CUA_ANNOTATOR_LIBRARY folder elsewhere without a
                    library is an error (LIBRARY_NOT_FOUND), never a new empty library
  -h, --help        show this help`;

// True when the library folder resolves to the default location (no --library and no
// CUA_ANNOTATOR_LIBRARY, or one naming that same folder): the one serve may create.
function isDefaultLibrary(flag: string | undefined): boolean {
  const chosen = resolveLibraryDir({ flag });
  if (chosen.from === 'default') {
    return true;
  }
  const env = { ...process.env };
  delete env.CUA_ANNOTATOR_LIBRARY;
  return chosen.dir === resolveLibraryDir({ env }).dir;
}

function parsePort(text: string | undefined): number {
  if (text === undefined) {
    return 0;
  }
  const port = Number(text);
  if (!/^\d+$/.test(text) || port > 65535) {
    throw new UsageError(`--port must be an integer from 0 to 65535 (got "${text}")`);
  }
  return port;
}

/** The `serve` command. */
export const serveCommand: Command = defineCommand({
  name: 'serve',
  summary: 'serve the review UI to a browser (loopback, per-launch token)',
  help: HELP,
  options: {
    host: { type: 'string' },
    port: { type: 'string' },
    'allow-remote': { type: 'boolean' },
    renderer: { type: 'string' },
    'export-root': { type: 'string' },
    open: { type: 'boolean' },
  },
  args: { none: true },
  run: async ({ values }) => {
    const host = values.host ?? DEFAULT_HOST;
    const port = parsePort(values.port);
    const allowRemote = values['allow-remote'] ?? false;
    const password = process.env[PASSWORD_ENV] || undefined;
    const refused = bindPolicyError({ host, allowRemote, password });
    if (refused) {
      throw new UsageError(refused);
    }
    const staticDir = values.renderer ? path.resolve(values.renderer) : defaultRendererDir();
    const exportRoot = values['export-root'] ? path.resolve(values['export-root']) : undefined;
    if (
      exportRoot !== undefined &&
      !fs.statSync(exportRoot, { throwIfNoEntry: false })?.isDirectory()
    ) {
      throw new UsageError(
        `--export-root ${exportRoot} is not an existing folder; create it first or name another`,
      );
    }

    // a new annotator has no library yet: make it at the default location (as record does),
    // so the Record page and the empty library page are reachable; never elsewhere (a typo)
    const createDefault = isDefaultLibrary(values.library);
    const existedBefore =
      createDefault &&
      fs.existsSync(path.join(resolveLibraryDir({ flag: values.library }).dir, 'library.sqlite'));

    const events = createEventHub();
    // the browser UI, its API and its media live under this per-launch path (media URLs too)
    const basePath = createSessionPath();
    return await withServices(
      values.library,
      async (services) => {
        const server = await createServer({
          services,
          events,
          host,
          port,
          allowRemote,
          password,
          staticDir,
          basePath,
          exportRoot,
          log: errLine,
        });
        const { stopped, dispose } = untilSignal();
        if (createDefault && !existedBefore) {
          errLine(
            `Created a new, empty library at ${services.lib.dir} (the default location). Record ` +
              'on the Record page, or import AgentNet folders with `cua-annotator import`.',
          );
        }
        out(`Serving the library ${services.lib.dir}`);
        out(`Open ${server.url}`);
        if (!isLoopbackHost(host)) {
          errLine(
            `warning: listening on ${host}: reachable from other machines, password-protected ` +
              'but unencrypted (HTTP).',
          );
        }
        if (values.open) {
          // TODO(serve): opening a browser needs a child process, allowed only in services/system
          errLine('note: --open is not available yet; open the URL above in your browser.');
        }
        out('Press Ctrl+C to stop.');
        try {
          const signal = await stopped;
          errLine(`${signal}: stopping the server…`);
          await server.close();
        } finally {
          dispose();
        }
        return 0;
      },
      {
        create: createDefault,
        services: {
          emit: events.emit,
          mediaUrl: (id, kind, name) => `${basePath}${mediaPath(id, kind, name)}`,
          // serve keeps running: submits the hub could not take are retried in the background
          team: { retry: {} },
        },
      },
    );
  },
});
