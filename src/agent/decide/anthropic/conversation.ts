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
export const IMAGE_TOKENS = 1_600;

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
 * kept exactly as the API returned them.
 *
 * Page blocks and screenshots are registered when made, so that {@link compact} can shrink
 * every one but the latest to a one-line summary. Shrinking edits earlier messages, which
 * would fail the prefix check of thinking blocks that came after (models with preserved
 * thinking answer that with a 400), so compaction also drops the thinking blocks of every
 * assistant turn after the first edit. It runs only when the estimate is over budget and
 * then shrinks everything it may at once, so the history is append-only (and cache-friendly)
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

  get messages(): readonly MessageParam[] {
    return this.history;
  }

  get isEmpty(): boolean {
    return this.history.length === 0;
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

  private static withoutThinking(message: MessageParam): MessageParam {
    if (message.role !== 'assistant' || typeof message.content === 'string') return message;
    const content = message.content.filter((block) => block.type !== 'thinking' && block.type !== 'redacted_thinking');
    if (content.length === message.content.length) return message;
    return { ...message, content: content.length > 0 ? content : [{ type: 'text', text: '(no visible reply)' }] };
  }

  /**
   * Shrinks the history when `overBudget` says the request would be too big: first every page
   * but the latest becomes its summary and older screenshots go; if that is not enough, the
   * oldest exchanges after the opening turn are dropped whole (an assistant turn together with
   * the user turn that answers it, so every tool_use keeps its tool_result). Returns whether
   * anything changed.
   */
  compact(overBudget: (messages: readonly MessageParam[]) => boolean): boolean {
    if (!overBudget(this.history)) return false;
    let firstEdit = -1;
    const shrunk = this.history.map((message, index) => {
      if (message.role !== 'user' || typeof message.content === 'string') return message;
      const content = message.content.map((block) => this.shrinkBlock(block));
      if (content.every((block, i) => block === (message.content as ContentBlockParam[])[i])) return message;
      if (firstEdit < 0) firstEdit = index;
      return { ...message, content };
    });
    let history = shrunk;
    // Drop (assistant, user) pairs after the opening turn while still over budget; never the
    // last assistant turn (its tool_use is answered next) nor a message holding the latest page.
    while (overBudget(history) && history.length >= 4 && !this.holdsLatest(history[2])) {
      history = [history[0] as MessageParam, ...history.slice(3)];
      this.droppedMessages += 2;
      firstEdit = firstEdit < 0 ? 1 : Math.min(firstEdit, 1);
    }
    if (firstEdit < 0) return false;
    this.history = history.map((message, index) => (index >= firstEdit ? Conversation.withoutThinking(message) : message));
    return true;
  }

  private holdsLatest(message: MessageParam | undefined): boolean {
    if (!message || typeof message.content === 'string') return false;
    const holds = (block: unknown): boolean =>
      block === this.latestPage ||
      (typeof block === 'object' && block !== null && (block as ContentBlockParam).type === 'tool_result' && Array.isArray((block as ToolResultBlockParam).content) && ((block as ToolResultBlockParam).content as unknown[]).some(holds));
    return message.content.some(holds);
  }
}
