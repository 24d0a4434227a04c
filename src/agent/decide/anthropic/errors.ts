import {
  APIConnectionError,
  APIConnectionTimeoutError,
  APIError,
  AuthenticationError,
  BadRequestError,
  ContentTooLargeError,
  NotFoundError,
  OverloadedError,
  PaymentRequiredError,
  PermissionDeniedError,
  RateLimitError,
} from '@anthropic-ai/sdk';
import type { Message } from '@anthropic-ai/sdk/resources/messages';
import type { ModelCall } from '../../../shared/run';
import { PlannerError } from '../planner';
import { errorMessage } from '../../../base/error-text';

interface ErrorContext {
  model: string;
  /** Host the requests went to (never the key). */
  host: string;
  maxRetries: number;
  /** What the caller is doing, for the message: "planning step 3". */
  doing: string;
}

const NOTHING_RAN = 'No action was taken for this step.';

/** A 400 that says the model does not take a forced tool choice (thinking models). */
export function isForcedToolChoiceRejected(error: unknown): boolean {
  return error instanceof BadRequestError && /tool_choice|forced tool|tool use.*forc/i.test(error.apiMessage ?? error.message);
}

function apiText(error: APIError): string {
  return error.apiMessage ?? error.message;
}

/**
 * The planner error for a failed Messages API call. The SDK has already retried what is
 * worth retrying (408, 409, 429, 5xx, 529) with backoff and retry-after; what reaches here is final.
 * Returns null for errors that are not from the API (programming errors are rethrown as they are).
 */
export function plannerErrorFrom(error: unknown, call: ModelCall | null, context: ErrorContext): PlannerError | null {
  const retried = `after ${context.maxRetries} ${context.maxRetries === 1 ? 'retry' : 'retries'}`;
  if (error instanceof AuthenticationError || error instanceof PermissionDeniedError) {
    return new PlannerError(
      'auth',
      `API key rejected (HTTP ${error.status} from ${context.host}) while ${context.doing}. Check ANTHROPIC_API_KEY` +
        ` (and ANTHROPIC_BASE_URL if you use a gateway). The run stopped; ${NOTHING_RAN}`,
      call,
    );
  }
  if (error instanceof RateLimitError) {
    return new PlannerError('unavailable', `The Messages API is still rate-limiting ${retried} (HTTP 429) while ${context.doing}. ${NOTHING_RAN} Resume the run later.`, call);
  }
  if (error instanceof OverloadedError) {
    return new PlannerError('unavailable', `The Messages API is still overloaded ${retried} (HTTP 529) while ${context.doing}. ${NOTHING_RAN} Resume the run later.`, call);
  }
  if (error instanceof ContentTooLargeError || (error instanceof BadRequestError && /prompt is too long|too many tokens|context window/i.test(apiText(error)))) {
    return new PlannerError('budget', `The request is too large for ${context.model} (${apiText(error)}) while ${context.doing}. Lower tokenBudget. ${NOTHING_RAN}`, call);
  }
  if (error instanceof NotFoundError) {
    return new PlannerError('rejected', `${context.host} does not know the model "${context.model}" (HTTP 404: ${apiText(error)}). Set a current Claude model id. ${NOTHING_RAN}`, call);
  }
  if (error instanceof PaymentRequiredError) {
    return new PlannerError('rejected', `The API account cannot be billed (HTTP 402: ${apiText(error)}). ${NOTHING_RAN}`, call);
  }
  if (error instanceof APIConnectionTimeoutError) {
    return new PlannerError('unavailable', `The Messages API at ${context.host} did not answer in time ${retried} while ${context.doing}. ${NOTHING_RAN}`, call);
  }
  if (error instanceof APIConnectionError) {
    return new PlannerError('unavailable', `Could not reach the Messages API at ${context.host} ${retried} while ${context.doing}. ${NOTHING_RAN}`, call);
  }
  if (error instanceof BadRequestError) {
    return new PlannerError('rejected', `The Messages API rejected the request (HTTP 400: ${apiText(error)}) while ${context.doing}. ${NOTHING_RAN} This is a fault in the request Portal Desk built; resuming sends the same kind of request, so report it.`, call);
  }
  if (error instanceof APIError) {
    const status = error.status === undefined ? 'no status' : `HTTP ${error.status}`;
    return new PlannerError('unavailable', `The Messages API failed (${status}: ${apiText(error)}) while ${context.doing}. ${NOTHING_RAN} Resume the run later.`, call);
  }
  return null;
}

/** The SDK could not parse the reply: a 200 whose JSON body was cut off (a dropped connection, a broken proxy). */
export function isMalformedBody(error: unknown): boolean {
  return error instanceof SyntaxError;
}

export function malformedBodyError(error: unknown, call: ModelCall | null, context: ErrorContext): PlannerError {
  return new PlannerError(
    'unavailable',
    `The Messages API at ${context.host} twice sent a reply that is not complete JSON (${errorMessage(error)}) while ${context.doing}. ${NOTHING_RAN} Resume the run later.`,
    call,
  );
}

/** The API kept pausing one turn (`pause_turn`). */
export function pauseLimitError(limit: number, call: ModelCall, doing: string): PlannerError {
  return new PlannerError('unavailable', `The Messages API paused the turn more than ${limit} times while ${doing}, so no complete turn came back. ${NOTHING_RAN} Resume the run later.`, call);
}

/** The model declined: say what the API reported (category, explanation). */
export function refusalError(message: Message, call: ModelCall, doing: string): PlannerError {
  const details = message.stop_details;
  const category = details?.category ? ` (category: ${details.category})` : '';
  const explanation = details?.explanation ? `: ${details.explanation}` : '';
  return new PlannerError(
    'refusal',
    `The model refused to continue${category}${explanation} while ${doing}. ${NOTHING_RAN} The clerk should look at the page; resume the run (set ANTHROPIC_FALLBACK_MODEL to try another model) or finish it by hand.`,
    call,
  );
}

export function maxTokensError(maxTokens: number, call: ModelCall, doing: string, atMaximumOf?: string): PlannerError {
  if (atMaximumOf) {
    return new PlannerError(
      'max_tokens',
      `The model's reply was cut off at max_tokens (${maxTokens}), the most ${atMaximumOf} can give, while ${doing}, so no complete turn came back. ${NOTHING_RAN} Lower the effort, or use a model with a larger output, and resume the run.`,
      call,
    );
  }
  return new PlannerError(
    'max_tokens',
    `The model's reply was cut off at max_tokens (${maxTokens}) while ${doing}, even after one retry with more tokens, so no complete turn came back. ` +
      `${NOTHING_RAN} Raise ANTHROPIC_MAX_TOKENS (or maxTokensCeiling), or lower the effort, and resume the run.`,
    call,
  );
}
