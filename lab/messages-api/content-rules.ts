/**
 * What the Messages API requires of the content it is sent, beyond the tool-use round trip
 * (server.ts checks that): each rule below is one the real API answers with a 400 (or, for the
 * body size, a 413), with the limits its documentation gives.
 *
 * - Every message has content, except an optional final assistant message (the API's words:
 *   "all messages must have non-empty content except for the optional final assistant message").
 * - A text block holds text: "text content blocks must be non-empty" / "must contain
 *   non-whitespace text" (also inside a tool_result, and in `system`).
 * - Images ("Images and vision"): JPEG, PNG, GIF or WebP, and the bytes must be what
 *   `media_type` says; at most 5 MB of base64 data each; at most 8000×8000 px, and at most 2000×2000 px once a request carries more
 *   than 20 images; at most 100 images in a request (the documented count for models with a
 *   200k-token context window, the smallest documented).
 * - The request body is at most 32 MB on the standard endpoints (413 `request_too_large`).
 */

import type { RequestBody, WireBlock, WireMessage } from './server';

/** The documented request size limit of the standard Messages API endpoint. */
export const MAX_REQUEST_BYTES = 32 * 1024 * 1024;
/** Per image, the API's limit on the base64 data ("Images and vision": 5 MB per image via the API). */
const MAX_IMAGE_BASE64_BYTES = 5 * 1024 * 1024;
const MAX_IMAGE_EDGE = 8_000;
const MANY_IMAGES = 20;
const MANY_IMAGES_MAX_EDGE = 2_000;
const MAX_IMAGES = 100;

const MEDIA_TYPES = ['image/jpeg', 'image/png', 'image/gif', 'image/webp'] as const;

interface ImageFacts {
  mediaType: (typeof MEDIA_TYPES)[number] | null;
  width: number | null;
  height: number | null;
}

/** The image type its bytes say, and its size where the header gives it (PNG, GIF, JPEG). */
function imageFacts(bytes: Buffer): ImageFacts {
  if (bytes.length >= 24 && bytes.readUInt32BE(0) === 0x89504e47 && bytes.readUInt32BE(12) === 0x49484452) {
    return { mediaType: 'image/png', width: bytes.readUInt32BE(16), height: bytes.readUInt32BE(20) };
  }
  if (bytes.length >= 10 && bytes.toString('latin1', 0, 4) === 'GIF8') return { mediaType: 'image/gif', width: bytes.readUInt16LE(6), height: bytes.readUInt16LE(8) };
  if (bytes.length >= 12 && bytes.toString('latin1', 0, 4) === 'RIFF' && bytes.toString('latin1', 8, 12) === 'WEBP') return { mediaType: 'image/webp', width: null, height: null };
  if (bytes.length >= 3 && bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) return { mediaType: 'image/jpeg', ...jpegSize(bytes) };
  return { mediaType: null, width: null, height: null };
}

/** A JPEG's size from its first start-of-frame marker. */
function jpegSize(bytes: Buffer): { width: number | null; height: number | null } {
  let at = 2;
  while (at + 9 < bytes.length && bytes[at] === 0xff) {
    const marker = bytes[at + 1]!;
    if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc) {
      return { height: bytes.readUInt16BE(at + 5), width: bytes.readUInt16BE(at + 7) };
    }
    at += 2 + bytes.readUInt16BE(at + 2);
  }
  return { width: null, height: null };
}

function blocksOf(message: WireMessage): WireBlock[] {
  return typeof message.content === 'string' ? [{ type: 'text', text: message.content }] : Array.isArray(message.content) ? message.content : [];
}

/** Each block of a message with where it is, tool_result contents included. */
function* withPaths(message: WireMessage, i: number): Generator<{ block: WireBlock; path: string }> {
  for (const [j, block] of blocksOf(message).entries()) {
    yield { block, path: `messages.${i}.content.${j}` };
    if (block.type === 'tool_result' && Array.isArray(block['content'])) {
      for (const [k, inner] of (block['content'] as WireBlock[]).entries()) yield { block: inner, path: `messages.${i}.content.${j}.content.${k}` };
    }
  }
}

function textProblem(block: WireBlock, where: string): string | null {
  if (block.type !== 'text') return null;
  const text = typeof block['text'] === 'string' ? block['text'] : '';
  if (text === '') return `${where}: text content blocks must be non-empty`;
  if (text.trim() === '') return `${where}: text content blocks must contain non-whitespace text`;
  return null;
}

/** The first content rule a request breaks, as the API words it; null when it keeps them all. */
export function contentProblem(body: RequestBody): string | null {
  const messages = body.messages ?? [];
  const last = messages.length - 1;
  if (Array.isArray(body.system)) {
    for (const block of body.system as WireBlock[]) {
      const problem = textProblem(block, 'system');
      if (problem) return problem;
    }
  }
  const images: { path: string; facts: ImageFacts }[] = [];
  for (const [i, message] of messages.entries()) {
    if (blocksOf(message).length === 0 && !(i === last && message.role === 'assistant')) {
      return `messages.${i}: all messages must have non-empty content except for the optional final assistant message`;
    }
    for (const { block, path } of withPaths(message, i)) {
      const problem = textProblem(block, 'messages');
      if (problem) return problem;
      if (block.type !== 'image') continue;
      const source = (block['source'] ?? {}) as Record<string, unknown>;
      if (source['type'] !== 'base64') continue;
      const mediaType = String(source['media_type'] ?? '');
      if (!(MEDIA_TYPES as readonly string[]).includes(mediaType)) {
        return `${path}.source.base64.media_type: Input should be ${MEDIA_TYPES.map((type) => `'${type}'`).join(', ')}`;
      }
      const data = String(source['data'] ?? '');
      if (data.length > MAX_IMAGE_BASE64_BYTES) return `${path}.image.source.base64: image exceeds 5 MB maximum: ${data.length} bytes > ${MAX_IMAGE_BASE64_BYTES} bytes`;
      const facts = imageFacts(Buffer.from(data, 'base64'));
      if (facts.mediaType === null) return `${path}.source.base64.data: Could not process image`;
      if (facts.mediaType !== mediaType) return `${path}.source.base64.data: Image does not match the provided media type ${mediaType}`;
      if ((facts.width ?? 0) > MAX_IMAGE_EDGE || (facts.height ?? 0) > MAX_IMAGE_EDGE) {
        return `${path}.source.base64.data: At least one of the image dimensions exceed max allowed size: ${MAX_IMAGE_EDGE} pixels`;
      }
      images.push({ path, facts });
    }
  }
  if (images.length > MAX_IMAGES) return `messages: Too many images in the request (${images.length}); at most ${MAX_IMAGES} are allowed`;
  if (images.length > MANY_IMAGES) {
    const big = images.find(({ facts }) => (facts.width ?? 0) > MANY_IMAGES_MAX_EDGE || (facts.height ?? 0) > MANY_IMAGES_MAX_EDGE);
    if (big) return `${big.path}.source.base64.data: At least one of the image dimensions exceed max allowed size for many-image requests: ${MANY_IMAGES_MAX_EDGE} pixels`;
  }
  return null;
}
