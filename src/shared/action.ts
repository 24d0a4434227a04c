import { z } from 'zod';
import { VALUE_FORMAT_HINT, ValueFormat } from './value-format';

/**
 * The agent's action vocabulary: the one source for the planner contract.
 * Every object is closed (`strictObject`) so the JSON Schema generated from it
 * carries `additionalProperties: false` for strict tool use.
 */

/** An opaque control reference minted by one observation (see `Observation.readId`). */
const Ref = z.string().min(1).max(32).describe('A control ref from the latest page read, e.g. "r4c12".');

/** A case-file field name. The executor types that field's value; the model never retypes values. */
export const FieldName = z.string().min(1).max(80).describe('Name of a case-file field, exactly as listed in the case.');

const ClickAction = z.strictObject({
  type: z.literal('click'),
  ref: Ref,
});

const FillAction = z.strictObject({
  type: z.literal('fill'),
  ref: Ref,
  field: FieldName,
  /** The way the box wants the value written (a closed list): code derives the text from the case value. */
  format: ValueFormat.optional().describe(VALUE_FORMAT_HINT),
});

const SelectAction = z.strictObject({
  type: z.literal('select'),
  ref: Ref,
  field: FieldName,
  /**
   * A look-up's result to choose (an address the portal listed after "Find address"), as its label
   * shows: code checks that its lines are the case's values (the named field's among them).
   */
  option: z
    .string()
    .min(1)
    .max(300)
    .optional()
    .describe('Only for a list of look-up results (addresses found for a postcode): the option label to choose, exactly as listed; its lines must be the case values. Null otherwise: the case value of field is selected.'),
});

export const CheckAction = z.strictObject({
  type: z.literal('check'),
  ref: Ref,
  checked: z.boolean(),
  /** The case field the choice answers (a yes/no field, or the value a radio's label shows): the guard checks it and records provenance. */
  field: FieldName.optional().describe('The case field this tick or radio choice answers (a yes/no field, or a field whose value is the radio label); omit for declarations and plain options.'),
});

/**
 * Empties a text box that holds a stale or wrong value (a value the portal kept from an earlier
 * application, or one typed into the wrong box). It types nothing: the box is left empty, and a
 * right value, if any, comes from the case with fill.
 */
const ClearAction = z.strictObject({
  type: z.literal('clear'),
  ref: Ref,
});

/** A document the case file lists (`documents`), by its name there; code attaches that file, never a path from the model. */
const DocumentName = z.string().min(1).max(80).describe('Name of a case-file document, exactly as listed in the case documents.');

/** Attaches one of the case file's documents to a file input; code picks the file and checks it. */
const UploadAction = z.strictObject({
  type: z.literal('upload'),
  ref: Ref,
  document: DocumentName,
});

export const PressAction = z.strictObject({
  type: z.literal('press'),
  key: z.enum(['Enter', 'Tab', 'Escape', 'ArrowDown', 'ArrowUp', 'Space']),
});

const GotoAction = z.strictObject({
  type: z.literal('goto'),
  url: z.string().min(1).max(2048),
});

/**
 * A question for the clerk. `missing_value` names the case field the answer fills
 * (it joins the case with provenance "clerk"); `security_answer` is treated as a secret;
 * `confirmation` asks the clerk to confirm before going on.
 */
const AskKind = z.enum(['missing_value', 'security_answer', 'confirmation']);
const AskAction = z.strictObject({
  type: z.literal('ask'),
  kind: AskKind,
  question: z.string().min(1).max(500),
  field: z.string().max(80).nullable(),
});

const DoneAction = z.strictObject({
  type: z.literal('done'),
  proof: z.string().min(1).max(500).describe('What on the page proves the task is complete, e.g. the application number.'),
});

const FailAction = z.strictObject({
  type: z.literal('fail'),
  reason: z.string().min(1).max(500),
});

export const Action = z.discriminatedUnion('type', [
  ClickAction,
  FillAction,
  SelectAction,
  CheckAction,
  ClearAction,
  UploadAction,
  PressAction,
  GotoAction,
  AskAction,
  DoneAction,
  FailAction,
]);
export type Action = z.infer<typeof Action>;
type AskKind = z.infer<typeof AskKind>;

/** Actions that touch a control on the page, and so carry a ref. */
type RefAction = Extract<Action, { ref: string }>;

export const MAX_ACTIONS_PER_TURN = 12;

/** One planner turn: a short reasoning note and the actions to run in order. */
export const Turn = z.strictObject({
  reasoning: z.string().max(2000),
  actions: z.array(Action).min(1).max(MAX_ACTIONS_PER_TURN),
});
export type Turn = z.infer<typeof Turn>;

export function hasRef(action: Action): action is RefAction {
  return 'ref' in action;
}
