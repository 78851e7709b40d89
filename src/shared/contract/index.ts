// The service contract shared by services, hosts (IPC, HTTP, CLI) and the renderer.
export * from './methods';
export * from './edits';
export * from './recorder';
export * from './team';
export * from './cot';
export * from './validators';
