// How a command reaches the services: open the library named by --library /
// CUA_ANNOTATOR_LIBRARY / the default (recovering what a crashed recorder left and cleaning up
// interrupted work, src/services/library/open-for-host.ts), build its services through the
// composition root (src/services/create-services.ts), run, then close the services and the
// library. Commands import values from src/services only through the root.
import {
  createServices,
  openLibraryForHost,
  type CreateServicesOptions,
  type Services,
} from '../services/create-services';
import { errLine } from './output';
import { APP_VERSION } from './version';

/** Options of {@link withServices}. */
export type WithServicesOptions = {
  /** Create the library when the folder holds none (`import`, `record`, `pull`); default false. */
  create?: boolean;
  /** The command only reads (list, show, check, scan, export): a read-only library opens
   * read-only instead of failing with LIBRARY_READ_ONLY; default false. */
  readOnly?: boolean;
  /** Host settings beyond the CLI's defaults (version, log to standard error). */
  services?: Partial<CreateServicesOptions>;
};

/**
 * Opens the library, builds its services and runs `fn`; always closes the services, then the
 * library.
 */
export async function withServices<T>(
  flag: string | undefined,
  fn: (services: Services) => Promise<T> | T,
  options: WithServicesOptions = {},
): Promise<T> {
  const lib = await openLibraryForHost({
    flag,
    create: options.create ?? false,
    allowReadOnly: options.readOnly ?? false,
    notice: errLine,
  });
  try {
    const services = createServices(lib, {
      appVersion: APP_VERSION,
      log: errLine,
      ...options.services,
    });
    try {
      return await fn(services);
    } finally {
      await services.close();
    }
  } finally {
    lib.close();
  }
}
