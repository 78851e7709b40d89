// A service context for tests that call services or dispatch directly, keeping what they emit.
// Built by the composition root (createServices), like every host's.
import type { Library } from '../../src/services/library/library';
import type { ServiceContext } from '../../src/services/context';
import { createServices, type Services } from '../../src/services/create-services';
import type { ApiEvent } from '../../src/shared/contract';

/**
 * A context on `lib` whose events (`[event, payload]`, in order) and log lines are kept in the
 * arrays returned beside it; media URLs are `/media/<id>/<kind>/<name>`. `services` is the
 * instance behind it (close it to stop background uploads).
 */
export function serviceContext(lib: Library): {
  ctx: ServiceContext;
  services: Services;
  events: [ApiEvent, unknown][];
  logs: string[];
} {
  const events: [ApiEvent, unknown][] = [];
  const logs: string[] = [];
  const services = createServices(lib, {
    appVersion: '0.0.0-test',
    emit: (event, payload) => events.push([event, payload]),
    mediaUrl: (id, kind, name) => `/media/${id}/${kind}/${name ?? ''}`,
    log: (line) => logs.push(line),
  });
  return { ctx: services.context, services, events, logs };
}
