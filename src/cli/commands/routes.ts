import type { Route, RouteAction, RouteStore } from '../../shared/route';
import { defaultDbPath, routesOf } from '../../store';
import { parseCommandArgs, shownArg } from '../args';
import { EXIT, UsageError } from '../cli-error';
import { openDeskStore } from '../store-opening';

const HELP = `portal-desk routes list|show|delete [PORTAL TASK] [options]

Learned routes: after a run ends done, the path it took (each page by its signature, each action by
its control's identity and case field, never a value) is kept per portal and task, and the next run
of that portal and task follows it without asking the planner, through the same guard and approvals.
Pages that changed go to the planner, and the route heals; a route that fails twice in a row retires.

  list                        every route: portal, task, version, status, pages, failures
  show PORTAL TASK            one route, page by page (--json for the data)
  delete PORTAL TASK          forget it: the next run asks the planner on every page and learns again
  --db PATH                   the run store (default: ${defaultDbPath()})
  --json                      data on stdout`;

export async function routesCommand(args: string[]): Promise<number> {
  const { values, positionals } = parseCommandArgs(args, { db: { type: 'string' }, json: { type: 'boolean' } }, true);
  if (values.help || positionals.length === 0) {
    console.log(HELP);
    return values.help ? EXIT.ok : EXIT.badInput;
  }
  const [verb, portal, task, ...rest] = positionals;
  if (rest.length) throw new UsageError(`routes ${verb} takes at most PORTAL TASK (got also "${shownArg(rest.join(' '))}")`);
  if (verb !== 'list' && verb !== 'show' && verb !== 'delete') throw new UsageError(`routes: unknown "${shownArg(verb ?? '')}"; use list, show PORTAL TASK or delete PORTAL TASK`);
  if (verb !== 'list' && (!portal || !task)) throw new UsageError(`routes ${verb} needs PORTAL and TASK, e.g. "portal-desk routes ${verb} shops shop-registration-renewal"`);
  // The office's store when PORTAL_DESK_DATABASE_URL names one (the routes every desk learned), else the SQLite file.
  const store = await openDeskStore(values.db ?? defaultDbPath(), 'write', { mustExist: true });
  const routes = routesOf(store);
  try {
    if (verb === 'list') return await list(routes, values.json === true);
    if (verb === 'show') return await show(routes, portal!, task!, values.json === true);
    const gone = await routes.deleteRoute(portal!, task!);
    console.log(gone ? `Deleted the route for ${portal}/${task}: the next run asks the planner on every page and learns it again.` : `No route for ${portal}/${task}; nothing deleted.`);
    return gone ? EXIT.ok : EXIT.notDone;
  } finally {
    routes.close();
    await store.close();
  }
}

async function list(routes: RouteStore, json: boolean): Promise<number> {
  const all = await routes.listRoutes();
  if (json) {
    console.log(JSON.stringify(all.map(summary), null, 2));
    return EXIT.ok;
  }
  if (all.length === 0) {
    console.log('No learned routes yet: a run that ends done learns its portal and task’s route.');
    return EXIT.ok;
  }
  for (const r of all) {
    const s = summary(r);
    console.log(`${s.portal}/${s.task}  v${s.version}  ${s.status}  ${s.pages} pages  failures ${s.failures}  learned from ${s.learnedFrom}  updated ${s.updatedAt}`);
  }
  return EXIT.ok;
}

function summary(r: Route) {
  return { portal: r.portal, task: r.task, version: r.version, status: r.status, pages: r.steps.length, failures: r.failures, learnedFrom: r.learnedFrom, healedSteps: r.healedSteps, updatedAt: r.updatedAt, ...(r.retiredReason ? { retiredReason: r.retiredReason } : {}) };
}

async function show(routes: RouteStore, portal: string, task: string, json: boolean): Promise<number> {
  const route = await routes.getRoute(portal, task);
  if (!route) {
    console.log(`No route for ${portal}/${task}.`);
    return EXIT.notDone;
  }
  if (json) {
    console.log(JSON.stringify(route, null, 2));
    return EXIT.ok;
  }
  console.log(`${route.portal}/${route.task} v${route.version} (${route.status}${route.retiredReason ? `: ${route.retiredReason}` : ''}), ${route.steps.length} pages, failures ${route.failures}, learned from run ${route.learnedFrom}, ${route.healedSteps} healed page(s)`);
  for (const [i, step] of route.steps.entries()) {
    const s = step.signature;
    console.log(`page ${i + 1}: ${s.flowStep ?? s.headings[0] ?? '(no heading)'} — ${s.controls.length} controls`);
    for (const action of step.actions) console.log(`   ${describe(action)}`);
  }
  return EXIT.ok;
}

function describe(a: RouteAction): string {
  const control = 'control' in a ? `${a.control.role} "${a.control.name}"${a.control.group ? ` in "${a.control.group}"` : ''}${a.control.of > 1 ? ` (${a.control.nth + 1} of ${a.control.of})` : ''}` : '';
  switch (a.type) {
    case 'fill':
    case 'select':
      return `${a.type} ${control} ← case field ${a.field}`;
    case 'check':
      return a.field ? `check ${control} as case field ${a.field} says` : `${a.checked ? 'tick' : 'untick'} ${control}`;
    case 'choose':
      return `choose the radio in "${a.group}" that case field ${a.field} names`;
    case 'click':
      return `click ${control}`;
    case 'press':
      return `press ${a.key}`;
    case 'done':
      return 'done (the loop checks the proof on the page)';
  }
}
