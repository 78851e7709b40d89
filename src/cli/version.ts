// The application version, from package.json.
import pkg from '../../package.json' with { type: 'json' };

/** Version written into recordings and printed by --version. */
export const APP_VERSION: string = pkg.version;
