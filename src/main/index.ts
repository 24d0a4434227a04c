import { join } from 'node:path';
import { app, BrowserWindow, ipcMain } from 'electron';

function createWindow(): void {
  const window = new BrowserWindow({
    width: 1440,
    height: 900,
    title: 'Portal Desk',
    webPreferences: {
      preload: join(__dirname, '../preload/index.js'),
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
    },
  });
  void window.loadFile(join(__dirname, '../renderer/index.html'));
}

ipcMain.handle('portal-desk:version', () => app.getVersion());
void app.whenReady().then(createWindow);
app.on('window-all-closed', () => app.quit());
