// The team client (docs/team-mode.md §12): HTTP to the hub, never src/hub itself.
export * from './account';
export * from './client';
export * from './credential-store';
export * from './credentials';
export * from './dataset';
export * from './login';
export * from './review';
export * from './submit';
export * from './team-service';
