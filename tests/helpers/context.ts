// A service context for tests that call services or dispatch directly, keeping what they emit.
import type { Library } from '../../src/services/library/library';
import type { ServiceContext } from '../../src/services/context';
import type { ApiEvent } from '../../src/shared/contract';

/**
 * A context on `lib` whose events (`[event, payload]`, in order) and log lines are kept in the
 * arrays returned beside it; media URLs are `/media/<id>/<kind>/<name>`.
 */
export function serviceContext(lib: Library): {
  ctx: ServiceContext;
  events: [ApiEvent, unknown][];
  logs: string[];
} {
  const events: [ApiEvent, unknown][] = [];
  const logs: string[] = [];
  return {
    ctx: {
      lib,
      emit: (event, payload) => events.push([event, payload]),
      mediaUrl: (id, kind, name) => `/media/${id}/${kind}/${name ?? ''}`,
      appVersion: '0.0.0-test',
      log: (line) => logs.push(line),
    },
    events,
    logs,
  };
}
