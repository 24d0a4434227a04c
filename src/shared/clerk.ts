import { z } from 'zod';
import { Action } from './action';
import { Verdict } from './verdict';

/** A gated action waiting for the clerk. */
export const ApprovalRequest = z.object({
  runId: z.string(),
  step: z.number().int().nonnegative(),
  action: Action,
  element: z.string().optional(),
  verdict: Verdict,
  /** PNG of the page when the approval was asked for, base64 (for the approval card). */
  screenshotBase64: z.string().optional(),
});
export type ApprovalRequest = z.infer<typeof ApprovalRequest>;

export const ApprovalDecision = z.object({
  decision: z.enum(['approve', 'deny']),
  by: z.string().min(1),
  note: z.string().optional(),
});
export type ApprovalDecision = z.infer<typeof ApprovalDecision>;

/** What the run needs typed by the clerk. `otp` and `security_answer` are secrets: masked everywhere. */
export const InputKind = z.enum(['otp', 'missing_value', 'security_answer', 'confirmation']);
export type InputKind = z.infer<typeof InputKind>;

export const InputRequest = z.object({
  runId: z.string(),
  step: z.number().int().nonnegative(),
  kind: InputKind,
  question: z.string(),
  field: z.string().nullable(),
});
export type InputRequest = z.infer<typeof InputRequest>;

export const SECRET_INPUT_KINDS: readonly InputKind[] = ['otp', 'security_answer'];

/** The clerk's side of a run: the engine asks through these ports, the shell answers. */
export interface ApprovalGate {
  request(req: ApprovalRequest): Promise<ApprovalDecision>;
}
export interface InputSource {
  /** Resolves with the clerk's answer, or null when the clerk declines. */
  ask(req: InputRequest): Promise<string | null>;
}
