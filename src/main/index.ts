import { startShell } from './shell';

// The production shell: no demo portals (a demo build's entry is lab/demo/shell.ts).
startShell();
