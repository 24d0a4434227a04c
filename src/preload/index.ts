import { contextBridge, ipcRenderer } from 'electron';

// Placeholder bridge; the typed console API from src/shared replaces it.
contextBridge.exposeInMainWorld('portalDesk', {
  version: (): Promise<string> => ipcRenderer.invoke('portal-desk:version'),
});
