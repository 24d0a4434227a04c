import { createContext, useContext, useSyncExternalStore } from 'react';
import type { ConsoleModel, ConsoleState } from './console-model';

export const ModelContext = createContext<ConsoleModel | null>(null);

export function useModel(): ConsoleModel {
  const model = useContext(ModelContext);
  if (!model) throw new Error('ModelContext is missing');
  return model;
}

export function useConsoleState(): ConsoleState {
  const model = useModel();
  return useSyncExternalStore(model.subscribe, model.getSnapshot);
}
