/** Field checks several portals share (used as `FieldSpec.check`). */

/** A date that is today or earlier. */
export function notInFuture(label: string) {
  return (value: string): string | null => (value > new Date().toISOString().slice(0, 10) ? `${label} must be today or in the past` : null);
}

/** A decimal number within a range. */
export function numberBetween(label: string, min: number, max: number) {
  return (value: string): string | null => {
    const n = Number(value);
    return Number.isFinite(n) && n >= min && n <= max ? null : `${label} must be between ${min} and ${max}`;
  };
}

export const PAN = { pattern: /^[A-Z]{5}\d{4}[A-Z]$/, message: 'Enter a PAN in the correct format, like ABCDE1234F' };
export const PINCODE = { pattern: /^[1-9]\d{5}$/, message: 'Enter a 6-digit PIN code, like 560001' };
