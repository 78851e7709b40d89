// The team client (docs/team-mode.md §8): HTTP to the hub, never src/hub itself.
export * from './client';
export * from './credentials';
export * from './login';
