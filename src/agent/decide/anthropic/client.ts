import Anthropic from '@anthropic-ai/sdk';
import type { AnthropicConfig } from './config';

const ANTHROPIC_API_URL = 'https://api.anthropic.com';

/**
 * The SDK client for a configuration. The base URL is always passed, so the SDK never reads
 * ANTHROPIC_BASE_URL behind the configuration's back; only the API key is given as credential,
 * so it reads no other. Retries (408, 409, 429, 5xx, 529, with backoff and retry-after) are the SDK's.
 */
export function createClient(config: AnthropicConfig): Anthropic {
  return new Anthropic({
    apiKey: config.apiKey,
    baseURL: config.baseURL ?? ANTHROPIC_API_URL,
    maxRetries: config.maxRetries,
    timeout: config.timeoutMs,
  });
}

/** The longest a non-streaming request is given: beyond it the SDK itself asks for streaming. */
const NON_STREAMING_LIMIT_MS = 10 * 60 * 1000;

/**
 * The timeout of one request: the configured one, but never less than the time a reply of
 * `maxTokens` may take at the SDK's own planning rate (an hour per 128,000 tokens), up to the
 * 10 minutes a non-streaming request may take. A non-streaming reply arrives whole only when the
 * model has finished (thinking included), so a shorter timeout cuts off a legitimate long reply,
 * and the SDK sends the same request again (each attempt billed) before giving up.
 */
export function requestTimeoutMs(config: AnthropicConfig, maxTokens: number): number {
  const expected = Math.ceil((60 * 60 * 1000 * maxTokens) / 128_000);
  return Math.max(config.timeoutMs, Math.min(expected, NON_STREAMING_LIMIT_MS));
}

/** The host requests go to, for messages (never the key). */
export function apiHost(config: AnthropicConfig): string {
  try {
    return new URL(config.baseURL ?? ANTHROPIC_API_URL).host;
  } catch {
    return config.baseURL ?? ANTHROPIC_API_URL;
  }
}
