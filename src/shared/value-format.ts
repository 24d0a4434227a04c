import { z } from 'zod';

/**
 * The ways a box may want a case value written: a closed list. A `fill` may name one; code,
 * never the model, derives the text from the case value, so what is typed is still the case
 * value, written the portal's way (a date as DD/MM/YYYY, the day of it in a Day box, a phone
 * number without its country code). Nothing here can make up text that is not in the value.
 */
export const VALUE_FORMATS = [
  'date:DD/MM/YYYY',
  'date:MM/DD/YYYY',
  'date:D MMMM YYYY',
  'date:YYYY-MM-DD',
  'date:day',
  'date:month',
  'date:year',
  'digits',
  'phone:national',
  'phone:trunk',
  'phone:international',
  'phone:spaced',
  'postcode:compact',
  'postcode:spaced',
  'amount:grouped',
  'amount:plain',
] as const;
export const ValueFormat = z.enum(VALUE_FORMATS);
export type ValueFormat = z.infer<typeof ValueFormat>;

export const VALUE_FORMAT_HINT =
  'How the box wants the case value written, where the page says (placeholder, hint, pattern, Day/Month/Year boxes): a date as DD/MM/YYYY, MM/DD/YYYY, D MMMM YYYY or YYYY-MM-DD; date:day, date:month or date:year for one box of a date in three; digits (digits only); phone:national (a phone number without its country code), phone:trunk (the national number with its leading 0), phone:international (+ and the country code, no spaces; only when the case value has a country code), phone:spaced (the national number in two groups, "98450 12345"); postcode:compact (no spaces, capitals) or postcode:spaced (a space before the last three characters); amount:grouped or amount:plain. Omit to type the value as it is.';

type Formatted = { ok: true; text: string } | { ok: false; reason: string };

const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];

/** Country calling codes of one and two digits (ITU-T E.164); every other code has three. */
const ONE_DIGIT_CODES = new Set(['1', '7']);
const TWO_DIGIT_CODES = new Set([
  '20', '27', '30', '31', '32', '33', '34', '36', '39', '40', '41', '43', '44', '45', '46', '47', '48', '49', '51', '52', '53', '54', '55', '56', '57', '58',
  '60', '61', '62', '63', '64', '65', '66', '81', '82', '84', '86', '90', '91', '92', '93', '94', '95', '98',
]);

const pad = (n: number): string => String(n).padStart(2, '0');

/** A case date (YYYY-MM-DD, as case files write dates) as its parts, or why it is not one. */
export function caseDate(value: string): { year: number; month: number; day: number } | { problem: string } {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(value.trim());
  if (!m) return { problem: `"${value.slice(0, 40)}" is not a date written YYYY-MM-DD` };
  const [year, month, day] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const check = new Date(Date.UTC(year, month - 1, day));
  if (month < 1 || month > 12 || check.getUTCFullYear() !== year || check.getUTCMonth() !== month - 1 || check.getUTCDate() !== day) {
    return { problem: `"${value}" is not a day of the calendar` };
  }
  return { year, month, day };
}

/** The plain number of an amount written with or without grouping (`1,25,000.50`, `125 000`), or null. */
function amountOf(value: string): { whole: string; fraction: string } | null {
  const m = /^\s*(?:₹|Rs\.?|INR|\$|£|€)?\s*(\d{1,3}(?:[, ]\d{2,3})*|\d+)(?:\.(\d+))?\s*$/i.exec(value);
  if (!m) return null;
  const whole = m[1]!.replace(/[, ]/g, '').replace(/^0+(?=\d)/, '');
  return { whole, fraction: m[2] ?? '' };
}

/**
 * A phone number's parts: its country code (when the value writes one, `+91` or `0091`), the
 * number without the code as the value writes it (`national`), and without the trunk 0 too
 * (`significant`, "9845012345" for +91 98450 12345, 098450 12345 or 98450 12345).
 */
function phoneOf(value: string): { code: string | null; national: string; significant: string } | { problem: string } {
  const trimmed = value.trim();
  if (!/^(\+|00)?[\d\s().-]+$/.test(trimmed)) return { problem: `"${value.slice(0, 40)}" is not a phone number` };
  let digits = trimmed.replace(/\D/g, '');
  let code: string | null = null;
  if (/^(\+|00)/.test(trimmed)) {
    if (trimmed.startsWith('00')) digits = digits.slice(2);
    const length = ONE_DIGIT_CODES.has(digits.slice(0, 1)) ? 1 : TWO_DIGIT_CODES.has(digits.slice(0, 2)) ? 2 : 3;
    code = digits.slice(0, length);
    digits = digits.slice(length);
  }
  if (digits.length < 4) return { problem: `"${value.slice(0, 40)}" is too short for a phone number` };
  return { code, national: digits, significant: digits.replace(/^0+/, '') };
}

/**
 * The text to type for a case value in the given format. Refuses (with the reason) a value the
 * format cannot be derived from: a date format of a value that is not a date, digits of a value
 * with none, an amount that is not a number. Pure.
 */
export function formatValue(value: string, format: ValueFormat): Formatted {
  if (format.startsWith('date:')) {
    const date = caseDate(value);
    if ('problem' in date) return { ok: false, reason: `${date.problem}, so it cannot be written as ${format.slice(5)}` };
    const { year, month, day } = date;
    switch (format) {
      case 'date:DD/MM/YYYY':
        return { ok: true, text: `${pad(day)}/${pad(month)}/${year}` };
      case 'date:MM/DD/YYYY':
        return { ok: true, text: `${pad(month)}/${pad(day)}/${year}` };
      case 'date:D MMMM YYYY':
        return { ok: true, text: `${day} ${MONTHS[month - 1]} ${year}` };
      case 'date:YYYY-MM-DD':
        return { ok: true, text: `${year}-${pad(month)}-${pad(day)}` };
      case 'date:day':
        return { ok: true, text: pad(day) };
      case 'date:month':
        return { ok: true, text: pad(month) };
      default:
        return { ok: true, text: String(year) };
    }
  }
  if (format === 'digits') {
    const digits = value.replace(/\D/g, '');
    return digits ? { ok: true, text: digits } : { ok: false, reason: `"${value.slice(0, 40)}" has no digits` };
  }
  if (format.startsWith('phone:')) {
    const phone = phoneOf(value);
    if ('problem' in phone) return { ok: false, reason: phone.problem };
    switch (format) {
      case 'phone:national':
        return { ok: true, text: phone.national };
      case 'phone:trunk':
        return { ok: true, text: `0${phone.significant}` };
      case 'phone:international':
        return phone.code ? { ok: true, text: `+${phone.code}${phone.significant}` } : { ok: false, reason: `"${value.slice(0, 40)}" has no country code, so it cannot be written with one` };
      default:
        return { ok: true, text: phone.significant.length > 6 ? `${phone.significant.slice(0, 5)} ${phone.significant.slice(5)}` : phone.significant };
    }
  }
  if (format.startsWith('postcode:')) {
    const compact = value.replace(/[\s-]+/g, '').toUpperCase();
    if (!/^[A-Z0-9]{4,10}$/.test(compact) || !/\d/.test(compact)) return { ok: false, reason: `"${value.slice(0, 40)}" is not a postcode` };
    return { ok: true, text: format === 'postcode:compact' ? compact : `${compact.slice(0, -3)} ${compact.slice(-3)}` };
  }
  const amount = amountOf(value);
  if (!amount) return { ok: false, reason: `"${value.slice(0, 40)}" is not an amount` };
  const fraction = amount.fraction ? `.${amount.fraction}` : '';
  if (format === 'amount:plain') return { ok: true, text: `${amount.whole}${fraction}` };
  return { ok: true, text: `${amount.whole.replace(/\B(?=(\d{3})+(?!\d))/g, ',')}${fraction}` };
}

/** `written as DD/MM/YYYY` for verdicts and logs. */
export function formatWords(format: ValueFormat): string {
  switch (format) {
    case 'date:day':
      return 'the day of the date';
    case 'date:month':
      return 'the month of the date';
    case 'date:year':
      return 'the year of the date';
    case 'digits':
      return 'digits only';
    case 'phone:national':
      return 'without the country code';
    case 'phone:trunk':
      return 'as a national number with its leading 0';
    case 'phone:international':
      return 'with the country code';
    case 'phone:spaced':
      return 'as a national number with a space';
    case 'postcode:compact':
      return 'as a postcode without spaces';
    case 'postcode:spaced':
      return 'as a postcode with a space';
    case 'amount:grouped':
      return 'as an amount with grouping';
    case 'amount:plain':
      return 'as an amount without grouping';
    default:
      return `written ${format.slice(5)}`;
  }
}
