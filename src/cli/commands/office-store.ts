import { openConfiguredStore, PgStore, StoreOpenError, DATABASE_URL_ENV } from '../../store';
import { OfficeQueue, type OfficeQueueOptions } from '../../service/office-queue';
import { UsageError } from '../cli-error';
import { errorText } from '../../base/error-text';

/** The office database the queue commands need: PORTAL_DESK_DATABASE_URL, as a one-line UsageError when it is missing or unusable. */
export function officeUrl(command: string, env: NodeJS.ProcessEnv = process.env): string {
  const url = env[DATABASE_URL_ENV]?.trim();
  if (!url) throw new UsageError(`"${command}" works on the office's shared store and queue: set ${DATABASE_URL_ENV}=postgres://user@host:port/database (see the README, "An office of several desks")`);
  return url;
}

export async function openOfficeStore(url: string, dbPath: string): Promise<PgStore> {
  try {
    const store = await openConfiguredStore({ dbPath, env: { ...process.env, [DATABASE_URL_ENV]: url } });
    if (!(store instanceof PgStore)) throw new UsageError(`${DATABASE_URL_ENV} does not name a PostgreSQL database`);
    return store;
  } catch (err) {
    if (err instanceof StoreOpenError) throw new UsageError(`${err.message}. Nothing was changed.`);
    throw err;
  }
}

export async function openOfficeQueue(url: string, options: OfficeQueueOptions): Promise<OfficeQueue> {
  try {
    return await OfficeQueue.open(url, options);
  } catch (err) {
    throw new UsageError(`Could not open the office queue: ${errorText(err).split('\n')[0]}. Nothing was queued.`);
  }
}
