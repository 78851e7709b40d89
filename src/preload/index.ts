// The preload of every app window (sandboxed, context-isolated): exposes `window.api` with
// `invoke` and `on` over the contract's allow-lists (./bridge.ts), and nothing else.
import { contextBridge, ipcRenderer } from 'electron';
import { BRIDGE_NAME, createBridge } from './bridge';

contextBridge.exposeInMainWorld(BRIDGE_NAME, createBridge(ipcRenderer));
