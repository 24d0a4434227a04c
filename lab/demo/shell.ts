import { startShell } from '../../src/main/shell';
import { LabHandle } from './lab-portals';

// The demo build's Electron entry (`PORTAL_DESK_DEMO=1 npm run build`, electron.vite.config.ts): the
// production shell with the portal lab filled in as its demo portals.
startShell({ demo: new LabHandle() });
