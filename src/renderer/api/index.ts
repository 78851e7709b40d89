// The app-wide api client: IPC when the preload bridge exists, HTTP otherwise. Tests swap it.
import { createApiClient, type ApiClient } from './client';
import { httpTransport } from './http-transport';
import { findWindowApi, ipcTransport } from './ipc-transport';

let current: ApiClient | null = null;

// The client for this page (created on first use).
export function getApiClient(): ApiClient {
  if (!current) {
    const bridge = findWindowApi();
    current = createApiClient(bridge ? ipcTransport(bridge) : httpTransport());
  }
  return current;
}

// Replaces the client (tests and embedding); null goes back to auto-detection.
export function setApiClient(client: ApiClient | null): void {
  current = client;
}

export { createApiClient, type ApiClient } from './client';
export { ApiError, errorMessage, type ApiErrorCode } from './api-error';
export { httpTransport } from './http-transport';
export { ipcTransport, type WindowApi } from './ipc-transport';
export type { Transport, WireResult } from './transport';
