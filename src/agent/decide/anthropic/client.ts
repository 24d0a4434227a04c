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

/** The host requests go to, for messages (never the key). */
export function apiHost(config: AnthropicConfig): string {
  try {
    return new URL(config.baseURL ?? ANTHROPIC_API_URL).host;
  } catch {
    return config.baseURL ?? ANTHROPIC_API_URL;
  }
}
