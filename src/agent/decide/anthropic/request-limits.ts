/**
 * What the Messages API refuses outright, whatever the token budget: limits its documentation
 * gives ("Images and vision", "request size limits"). The planner keeps every request inside them.
 *
 * - An image over 5 MB (its base64 data) or larger than 8000×8000 px is rejected; once a request carries more than 20 images,
 *   every image must be within 2000×2000 px. The planner keeps a request to at most 20 images, so
 *   the second limit never applies to a screenshot taken on a high-density screen.
 * - The request body is at most 32 MB on the standard endpoints (413 `request_too_large`); the
 *   planner keeps a margin under it for the JSON around the images.
 */

const MAX_IMAGE_EDGE = 8_000;
/** Per image, the API refuses more than 5 MB of base64 data ("image exceeds 5 MB maximum"). */
const MAX_IMAGE_BASE64_BYTES = 5 * 1024 * 1024;
/** Images a request carries at most: past 20, the API's per-image limit drops to 2000×2000 px. */
export const MAX_IMAGES_PER_REQUEST = 20;
/** Bytes of JSON a request may reach: the documented 32 MB, less a margin. */
export const MAX_REQUEST_BYTES = 30 * 1024 * 1024;

const PNG_SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];

/** Why the API would refuse this screenshot as an `image/png` block, or null when it takes it. */
export function screenshotRefusal(png: Uint8Array): string | null {
  const bytes = Buffer.from(png.buffer, png.byteOffset, png.byteLength);
  if (bytes.length < 24 || PNG_SIGNATURE.some((byte, i) => bytes[i] !== byte) || bytes.toString('latin1', 12, 16) !== 'IHDR') return 'not a PNG image';
  const width = bytes.readUInt32BE(16);
  const height = bytes.readUInt32BE(20);
  if (width > MAX_IMAGE_EDGE || height > MAX_IMAGE_EDGE) return `${width}×${height} px, over the API's ${MAX_IMAGE_EDGE} px limit`;
  const base64Bytes = 4 * Math.ceil(bytes.length / 3);
  if (base64Bytes > MAX_IMAGE_BASE64_BYTES) return `${base64Bytes} bytes as base64, over the API's 5 MB per-image limit`;
  return null;
}

/** How many base64 images a request part carries, and its size as JSON (bytes; the JSON is ASCII but for page text). */
export function requestShape(value: unknown): { images: number; bytes: number } {
  let images = 0;
  const text = JSON.stringify(value, (key, item: unknown) => {
    if (key === 'source' && item && typeof item === 'object' && (item as { type?: unknown }).type === 'base64') images += 1;
    return item;
  });
  return { images, bytes: text === undefined ? 0 : Buffer.byteLength(text) };
}

/**
 * Documented maximum output ("Models overview", max output) of the model ids whose limit is
 * below what the planner may ask for; the API refuses a larger `max_tokens` with a 400
 * ("max_tokens: N > M, which is the maximum allowed number of output tokens for MODEL").
 */
const MAX_OUTPUT: [RegExp, number][] = [
  [/^claude-opus-4-1?(-\d{8})?$/, 32_000],
  [/^claude-(sonnet-4(-[56])?|haiku-4-5|opus-4-5)(-\d{8})?$/, 64_000],
  [/^claude-3-5-haiku(-\d{8}|-latest)?$/, 8_192],
  [/^claude-3-haiku(-\d{8})?$/, 4_096],
];

/** The most `max_tokens` a request to this model may carry (Infinity for ids not listed; the config caps those). */
export function maxOutputTokens(model: string): number {
  const id = model.toLowerCase().split('/').pop() ?? model;
  return MAX_OUTPUT.find(([pattern]) => pattern.test(id))?.[1] ?? Number.POSITIVE_INFINITY;
}
