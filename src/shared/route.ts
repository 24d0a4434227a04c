import { z } from 'zod';
import { CheckAction, FieldName, PressAction } from './action';

/**
 * A learned route: the path a run that ended `done` took through a portal for one task, kept so
 * that the next run of the same portal and task can follow it without asking the planner. A route
 * is written in FIELD terms, never values: which control (by what identifies it on the page) gets
 * which case field, what to click, which key to press. It is reusable across clients, and every
 * action it yields goes through the same guard, approvals, commit gate and step log as a planner's.
 */

/** Where a step's turn came from: the learned route, or the planner (rules, Claude). Code's own steps carry none. */
export const StepSource = z.enum(['route', 'planner']);
export type StepSource = z.infer<typeof StepSource>;

const Text = z.string().max(300);

/**
 * What identifies a control on a page, without refs (which live for one read only): its role, its
 * accessible name (with case values and digits replaced, see `scrubText`), the group it sits in,
 * and its position among the controls of the page with the same role, name and group.
 */
export const ControlIdentity = z.strictObject({
  role: z.string().min(1).max(40),
  name: Text,
  group: Text.optional(),
  /** 0-based position among equals (same role, name and group) on the page. */
  nth: z.number().int().nonnegative().max(150),
  /** How many equals the page had: a page with more or fewer is not the same page. */
  of: z.number().int().positive().max(150),
});
export type ControlIdentity = z.infer<typeof ControlIdentity>;

/** What identifies a page: its flow step, its headings and the set of its controls (role, name, group). */
export const PageSignature = z.strictObject({
  flowStep: Text.nullable(),
  headings: z.array(Text).max(40),
  /** Every control by role, name (a radio's as `{option}`) and group, sorted: a set, not a layout. */
  controls: z.array(z.strictObject({ role: z.string().min(1).max(40), name: Text, group: Text.optional() })).max(150),
});
export type PageSignature = z.infer<typeof PageSignature>;

/**
 * One action of a route, in field terms. `fill` / `select` type a case field; `check` either ticks
 * a box from a yes/no case field (`field`) or to a fixed state (`checked`, a declaration); `choose`
 * picks the radio of a group whose label is the case field's value; `click` presses a control;
 * `press` a key; `done` claims the confirmation page (the loop still demands its proof).
 * There is deliberately no `goto`: a route never names an address.
 */
export const RouteAction = z.discriminatedUnion('type', [
  z.strictObject({ type: z.literal('fill'), control: ControlIdentity, field: FieldName }),
  z.strictObject({ type: z.literal('select'), control: ControlIdentity, field: FieldName }),
  z.strictObject({ type: z.literal('check'), control: ControlIdentity, field: FieldName.optional(), checked: CheckAction.shape.checked.optional() }),
  z.strictObject({ type: z.literal('choose'), role: z.literal('radio'), group: Text, field: FieldName }),
  z.strictObject({ type: z.literal('click'), control: ControlIdentity }),
  z.strictObject({ type: z.literal('press'), key: PressAction.shape.key }),
  z.strictObject({ type: z.literal('done') }),
]);
export type RouteAction = z.infer<typeof RouteAction>;

/** One page of a route and the turn taken on it. */
export const RouteStep = z.strictObject({
  signature: PageSignature,
  actions: z.array(RouteAction).min(1).max(40),
});
export type RouteStep = z.infer<typeof RouteStep>;

const RouteStatus = z.enum(['active', 'retired']);
type RouteStatus = z.infer<typeof RouteStatus>;

export const Route = z.strictObject({
  portal: z.string().min(1).max(80),
  task: z.string().min(1).max(120),
  /** 1 when first learned; +1 each time healed steps were merged or it was learned again. */
  version: z.number().int().positive(),
  status: RouteStatus,
  /** Runs in a row that followed the route and did not end `done`; two retire it. */
  failures: z.number().int().nonnegative(),
  steps: z.array(RouteStep).min(1).max(200),
  /** The run it was learned (or last healed) from. */
  learnedFrom: z.string().max(80),
  /** Steps of that run that came from the planner and were merged in (0 when nothing changed). */
  healedSteps: z.number().int().nonnegative(),
  createdAt: z.string(),
  updatedAt: z.string(),
  /** Why it was retired, in one line. */
  retiredReason: z.string().max(500).optional(),
});
export type Route = z.infer<typeof Route>;

/** Two failed runs in a row retire a route. */
export const ROUTE_FAILURES_TO_RETIRE = 2;

/**
 * The route store port (SQLite in `src/store`; PostgreSQL mirrors it). One route per portal and
 * task. `get` answers null for a missing route and throws for a stored one that fails the schema
 * (a tampered or damaged row is never followed).
 */
export interface RouteStore {
  getRoute(portal: string, task: string): Promise<Route | null>;
  saveRoute(route: Route): Promise<void>;
  listRoutes(): Promise<Route[]>;
  /** Answers whether there was one to delete. */
  deleteRoute(portal: string, task: string): Promise<boolean>;
}
