import type {
  ContentBlockParam,
  ImageBlockParam,
  MessageParam,
  TextBlockParam,
  ToolResultBlockParam,
} from '@anthropic-ai/sdk/resources/messages';
import type { Observation } from '../../../shared/observation';
import { pageBlock, pageSummary } from './page-block';

/** Input tokens an image is counted as when estimating (a ~1280×800 screenshot). */
const IMAGE_TOKENS = 1_600;

/** Estimated tokens of request parts: characters / 4, with image data counted as {@link IMAGE_TOKENS}. */
export function estimateTokens(value: unknown): number {
  let images = 0;
  const text = JSON.stringify(value, (key, item: unknown) => {
    if (key === 'source' && item && typeof item === 'object' && (item as { type?: unknown }).type === 'base64') {
      images += 1;
      return null;
    }
    return item;
  });
  return Math.ceil((text?.length ?? 0) / 4) + images * IMAGE_TOKENS;
}

const SCREENSHOT_REMOVED = '[earlier screenshot removed]';

/**
 * The planner's conversation with the model in one run: committed messages only (a user turn
 * and the assistant's reply to it), in the tool-use round trip's order. Assistant turns are
 * kept exactly as the API returned them, thinking blocks included.
 *
 * Two rules of the API bound what compaction may do once thinking blocks are in the history:
 * with thinking on, the last assistant turn (whose tool_use the next user turn answers) must
 * come back with its thinking block; and models with preserved thinking reject a thinking block
 * whose prefix (system, tools, every earlier message) changed after it was produced. Editing any
 * earlier message therefore invalidates the very block the API requires. So {@link compact}
 * only edits histories without thinking; one that holds thinking is {@link restart}ed instead:
 * the planner opens a new conversation whose first user turn carries the case file, a summary of
 * the earlier turns and the page, so no stale thinking block and no unanswered tool_use remain.
 *
 * Page blocks and screenshots are registered when made, so that {@link compact} can shrink
 * every one but the latest to a one-line summary. It runs only when the estimate is over budget
 * and then shrinks everything it may at once, so the history is append-only (and cache-friendly)
 * again until the next time.
 */
export class Conversation {
  private history: MessageParam[] = [];
  /** Full page blocks still in the conversation (or about to be sent) → their summary. */
  private readonly pages = new Map<object, string>();
  private readonly images = new Set<object>();
  private latestPage: object | null = null;
  private latestImage: object | null = null;
  /** Messages dropped whole by compaction (beyond summarising), for tests and logs. */
  droppedMessages = 0;
  /** Times the history was replaced by a summary (histories with thinking), for tests and logs. */
  restarts = 0;

  get messages(): readonly MessageParam[] {
    return this.history;
  }

  get isEmpty(): boolean {
    return this.history.length === 0;
  }

  /** Some assistant turn carries a thinking block: the history may only grow (see the class note). */
  get holdsThinking(): boolean {
    return this.history.some(
      (message) => message.role === 'assistant' && typeof message.content !== 'string' && message.content.some((block) => block.type === 'thinking' || block.type === 'redacted_thinking'),
    );
  }

  /** A text block with the page read, registered as the latest page. */
  pageBlock(observation: Observation): TextBlockParam {
    const block: TextBlockParam = { type: 'text', text: pageBlock(observation) };
    this.pages.set(block, pageSummary(observation));
    this.latestPage = block;
    return block;
  }

  /** A PNG screenshot block, registered as the latest image. */
  imageBlock(png: Uint8Array): ImageBlockParam {
    const block: ImageBlockParam = { type: 'image', source: { type: 'base64', media_type: 'image/png', data: Buffer.from(png).toString('base64') } };
    this.images.add(block);
    this.latestImage = block;
    return block;
  }

  /** Records a user turn and the assistant's reply to it. */
  commit(user: MessageParam, assistant: MessageParam): void {
    this.history.push(user, assistant);
  }

  /** Forgets every committed message (the caller sends a summary in the new first turn). */
  restart(): void {
    this.history = [];
    for (const page of this.pages.keys()) if (page !== this.latestPage) this.pages.delete(page);
    for (const image of this.images) if (image !== this.latestImage) this.images.delete(image);
    this.restarts += 1;
  }

  private shrinkBlock(block: ContentBlockParam): ContentBlockParam {
    if (block !== this.latestPage && this.pages.has(block)) {
      const summary: TextBlockParam = { type: 'text', text: this.pages.get(block) ?? '' };
      this.pages.delete(block);
      return summary;
    }
    if (block !== this.latestImage && this.images.has(block)) {
      this.images.delete(block);
      return { type: 'text', text: SCREENSHOT_REMOVED };
    }
    if (block.type === 'tool_result' && Array.isArray(block.content)) {
      const content = block.content.map((inner) => this.shrinkBlock(inner as ContentBlockParam)) as ToolResultBlockParam['content'];
      const changed = (content as unknown[]).some((inner, i) => inner !== (block.content as unknown[])[i]);
      return changed ? { ...block, content } : block;
    }
    return block;
  }

  /**
   * Shrinks a history without thinking blocks when `overBudget` says the request would be too
   * big: first every page but the latest becomes its summary and older screenshots go; if that
   * is not enough, the oldest exchanges after the opening turn are dropped whole (an assistant
   * turn together with the user turn that answers it, so every tool_use keeps its tool_result).
   * A history with thinking is left as it is (the planner restarts it). Returns whether anything changed.
   */
  compact(overBudget: (messages: readonly MessageParam[]) => boolean): boolean {
    if (this.holdsThinking || !overBudget(this.history)) return false;
    let changed = false;
    let history = this.history.map((message) => {
      if (message.role !== 'user' || typeof message.content === 'string') return message;
      const content = message.content.map((block) => this.shrinkBlock(block));
      if (content.every((block, i) => block === (message.content as ContentBlockParam[])[i])) return message;
      changed = true;
      return { ...message, content };
    });
    // Drop (assistant, user) pairs after the opening turn while still over budget; never the
    // last assistant turn (its tool_use is answered next) nor a message holding the latest page.
    while (overBudget(history) && history.length >= 4 && !this.holdsLatest(history[2])) {
      history = [history[0] as MessageParam, ...history.slice(3)];
      this.droppedMessages += 2;
      changed = true;
    }
    if (changed) this.history = history;
    return changed;
  }

  private holdsLatest(message: MessageParam | undefined): boolean {
    if (!message || typeof message.content === 'string') return false;
    const holds = (block: unknown): boolean =>
      block === this.latestPage ||
      (typeof block === 'object' && block !== null && (block as ContentBlockParam).type === 'tool_result' && Array.isArray((block as ToolResultBlockParam).content) && ((block as ToolResultBlockParam).content as unknown[]).some(holds));
    return message.content.some(holds);
  }
}
