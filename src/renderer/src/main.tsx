import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { connectConsole } from './api-client';
import { App } from './app';
import { ModelContext } from './console-context';
import { ConsoleModel } from './console-model';
import './styles.css';

const model = new ConsoleModel(connectConsole());

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <ModelContext.Provider value={model}>
      <App />
    </ModelContext.Provider>
  </StrictMode>,
);
