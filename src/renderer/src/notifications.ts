import type { RunView } from '../../shared/console-api';
import { reasonLine } from './status';

/** Whether the console may show desktop notifications; asking needs a click. */
export function notificationPermission(): NotificationPermission | 'unsupported' {
  return typeof Notification === 'undefined' ? 'unsupported' : Notification.permission;
}

export async function askForNotifications(): Promise<NotificationPermission | 'unsupported'> {
  if (typeof Notification === 'undefined') return 'unsupported';
  return Notification.requestPermission();
}

/** A desktop notification when a run starts waiting for the clerk (when permitted). Clicking it opens the run. */
export function notifyWaiting(view: RunView): void {
  if (notificationPermission() !== 'granted') return;
  try {
    const n = new Notification(`Waiting for you: ${view.run.caseId}`, { body: reasonLine(view), tag: view.run.id });
    n.onclick = () => {
      window.focus();
      window.location.hash = `#/run/${encodeURIComponent(view.run.id)}`;
      n.close();
    };
  } catch {
    // Some embedders refuse page notifications; the amber header still says it.
  }
}
