import type { Message, MessageCreateParamsNonStreaming } from '@anthropic-ai/sdk/resources/messages';
import { type ModelCall, type TokenUsage, ZERO_USAGE } from '../../../shared/run';
import { digest } from './digest';
import { addUsage, type PriceTable, priceFor, usageOf } from './prices';

/**
 * The `ModelCall` behind one planner turn (or one extraction). A turn can take more than one
 * API call (a tool input sent back for correction, a retry with more tokens): usage and time
 * add up, and the digests are those of the last request and response.
 */
export class CallLog {
  private usage: TokenUsage | undefined;
  private ms = 0;
  private calls = 0;
  private requestDigest: string | undefined;
  private responseDigest: string | undefined;
  private model: string;
  private imageReason: string | undefined;

  constructor(
    private readonly planner: string,
    model: string,
    private readonly prices: PriceTable,
  ) {
    this.model = model;
  }

  /** A screenshot went up with this turn. */
  image(reason: string): void {
    this.imageReason = reason;
  }

  /** A request was sent and failed (no response to account for). */
  failed(params: MessageCreateParamsNonStreaming, startedAt: number): void {
    this.calls += 1;
    this.ms += Date.now() - startedAt;
    this.requestDigest = digest(params);
    this.responseDigest = undefined;
  }

  /** A request was answered. */
  answered(params: MessageCreateParamsNonStreaming, message: Message, startedAt: number): void {
    this.calls += 1;
    this.ms += Date.now() - startedAt;
    this.requestDigest = digest(params);
    this.responseDigest = digest(message);
    const price = priceFor(message.model || this.model, this.prices) ?? priceFor(this.model, this.prices);
    this.usage = addUsage(this.usage ?? ZERO_USAGE, usageOf(message.usage, price));
    if (message.model) this.model = message.model;
  }

  /** The record so far; null when no request was sent. */
  call(): ModelCall | null {
    if (this.calls === 0) return null;
    const call: ModelCall = {
      planner: this.planner,
      model: this.model,
      ms: this.ms,
      imageSent: this.imageReason !== undefined,
    };
    if (this.requestDigest) call.requestDigest = this.requestDigest;
    if (this.responseDigest) call.responseDigest = this.responseDigest;
    if (this.usage) call.usage = this.usage;
    if (this.imageReason) call.imageReason = this.imageReason;
    return call;
  }

  /** Like {@link call}, for errors raised after a request was answered. */
  mustCall(): ModelCall {
    const call = this.call();
    if (!call) throw new Error('CallLog.mustCall before any request');
    return call;
  }
}
