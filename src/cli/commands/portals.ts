import type { RequestMapStore } from '../../shared/request-map';
import { entryLine } from '../../shared/request-map';
import { defaultDbPath, requestMapsOf } from '../../store';
import { parseCommandArgs, shownArg } from '../args';
import { EXIT, UsageError } from '../cli-error';
import { openDeskStore } from '../store-opening';

const HELP = `portal-desk portals map list [PORTAL] | portals map remove PORTAL ID [options]
       portal-desk portals learn --id ID --start-url URL --case FILE [options]   (see portals learn --help)

The request map the clerk taught: when a request the commit gate holds is a section save or a
look-up, the clerk may answer "don't ask again", and the portal's map learns its method, path and
shape (the fields it carries, the values of the fields that choose what it does). A request that
carries a value not from the case is never learned. The profile's own requestMap is not listed here.

  map list [PORTAL]           learned entries: portal, id, version, entry, who taught it, in which run
  map remove PORTAL ID        forget one: the next request it named is asked about again
  --db PATH                   the run store (default: ${defaultDbPath()}; the office store when
                              PORTAL_DESK_DATABASE_URL is set)
  --json                      data on stdout`;

export async function portalsCommand(args: string[]): Promise<number> {
  if (args[0] === 'learn') return (await import('./portals-learn')).portalsLearnCommand(args.slice(1));
  const { values, positionals } = parseCommandArgs(args, { db: { type: 'string' }, json: { type: 'boolean' } }, true);
  if (values.help || positionals.length === 0) {
    console.log(HELP);
    return values.help ? EXIT.ok : EXIT.badInput;
  }
  const [noun, verb, portal, id, ...rest] = positionals;
  if (noun !== 'map') throw new UsageError(`portals: unknown "${shownArg(noun ?? '')}"; use "portals map list", "portals map remove PORTAL ID" or "portals learn"`);
  if (verb !== 'list' && verb !== 'remove') throw new UsageError(`portals map: unknown "${shownArg(verb ?? '')}"; use list [PORTAL] or remove PORTAL ID`);
  if (verb === 'list' && (id !== undefined || rest.length)) throw new UsageError('portals map list takes at most PORTAL');
  let entryId: number | undefined;
  if (verb === 'remove') {
    if (!portal || id === undefined || rest.length) throw new UsageError('portals map remove needs PORTAL and ID, e.g. "portal-desk portals map remove shops 3" (ids from "portals map list")');
    if (!/^[1-9]\d{0,11}$/.test(id)) throw new UsageError(`portals map remove: "${shownArg(id)}" is not an entry id (a positive whole number from "portals map list")`);
    entryId = Number(id);
  }
  const store = await openDeskStore(values.db ?? defaultDbPath(), 'write', { mustExist: true });
  const maps = requestMapsOf(store);
  try {
    if (verb === 'list') return await list(maps, portal, values.json === true);
    const gone = await maps.removeMapEntry(portal!, entryId!);
    console.log(gone ? `Removed entry ${entryId} of ${portal}'s request map: the requests it named are asked about again.` : `No entry ${entryId} in ${portal}'s learned request map; nothing removed.`);
    return gone ? EXIT.ok : EXIT.notDone;
  } finally {
    maps.close();
    await store.close();
  }
}

async function list(maps: RequestMapStore, portal: string | undefined, json: boolean): Promise<number> {
  const all = await maps.listMap(portal);
  if (json) {
    console.log(JSON.stringify(all, null, 2));
    return EXIT.ok;
  }
  if (all.length === 0) {
    console.log(`No learned request map entries${portal ? ` for ${portal}` : ''} yet: a clerk teaches one from a held request's card.`);
    return EXIT.ok;
  }
  for (const e of all) console.log(`${e.portal}  #${e.id}  v${e.version}  ${entryLine(e.entry)}  taught by ${e.taughtBy}${e.runId ? ` in run ${e.runId}` : ''}  ${e.createdAt}`);
  return EXIT.ok;
}
