// The hub's HTTP layer (docs/team-mode.md §12).
export {
  createHubServer,
  HUB_SESSION_COOKIE,
  HUB_SESSION_COOKIE_SECURE,
  type HubServerHandle,
  type HubServerOptions,
} from './server';
export { createLoginLimiter, DEFAULT_LOGIN_LIMITS, type LoginLimits } from './rate-limit';
