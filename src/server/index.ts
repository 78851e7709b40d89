// HTTP binding of the service contract: what hosts (the CLI, later the app) use from src/server.
export { createServer, DEFAULT_HOST, type ServerHandle, type ServerOptions } from './server';
export { createEventHub, type EventHub } from './events';
export { mediaPath } from './media';
export { bindPolicyError, createSessionPath, isLoopbackHost, PASSWORD_ENV } from './security';
export { statusForResult } from './status';
export { defaultRendererDir } from './static';
