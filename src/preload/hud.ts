// The preload of the HUD window (sandboxed, context-isolated): `window.api` like the main
// window's (./bridge.ts), over the HUD's allow-lists only (src/shared/contract/hud.ts): its
// status, pause/resume and stop. The main process refuses the HUD any other method too.
import { contextBridge, ipcRenderer } from 'electron';
import { HUD_EVENTS, HUD_METHODS } from '../shared/contract/hud';
import { BRIDGE_NAME, createBridge } from './bridge';

contextBridge.exposeInMainWorld(
  BRIDGE_NAME,
  createBridge(ipcRenderer, { methods: HUD_METHODS, events: HUD_EVENTS }),
);
