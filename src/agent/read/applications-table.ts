import { htmlText } from '../../shared/html-text';
import { firstMatch, linearPattern } from '../../shared/linear-pattern';
/**
 * The rules extractor of a portal's applications list: the rows of its tables, each with the
 * application number (found by the profile's pattern), and the status, client reference and date
 * from the columns whose headers say so ("Status", "Reference" / "Client reference", "Date" /
 * "Submitted"). Pure: it reads the page's HTML and nothing else.
 */

interface ListedRow {
  applicationNumber: string;
  status: string | null;
  reference: string | null;
  date: string | null;
}

const TABLE = /<table\b[^>]*>([\s\S]*?)<\/table>/gi;
const ROW = /<tr\b[^>]*>([\s\S]*?)<\/tr>/gi;
const CELL = /<(td|th)\b[^>]*>([\s\S]*?)<\/\1>/gi;

type Column = 'status' | 'reference' | 'date' | 'number' | 'other';

function columnOf(header: string): Column {
  const h = header.toLowerCase();
  if (/\bstatus\b|\bstate of\b/.test(h)) return 'status';
  if (/\bdate\b|\bsubmitted\b|\bfiled\b/.test(h)) return 'date';
  if (/application (number|no)|\bref\.? ?no\b|reference number|request (number|no)/.test(h)) return 'number';
  if (/reference|consumer|registration/.test(h)) return 'reference';
  return 'other';
}

/** Every row of the page's tables that shows an application number. */
export function applicationRows(html: string, numberPattern: string): ListedRow[] {
  const pattern = linearPattern(numberPattern);
  const rows: ListedRow[] = [];
  for (const [, table] of html.matchAll(TABLE)) {
    let columns: Column[] = [];
    for (const [, row] of (table ?? '').matchAll(ROW)) {
      const cells = [...(row ?? '').matchAll(CELL)].map((m) => ({ header: m[1]!.toLowerCase() === 'th', text: htmlText(m[2]!) }));
      if (cells.length > 0 && cells.every((c) => c.header)) {
        columns = cells.map((c) => columnOf(c.text));
        continue;
      }
      const texts = cells.map((c) => c.text);
      const numbers = texts.map((t) => firstMatch(pattern, t));
      const numberAt = numbers.findIndex((n) => n !== undefined);
      if (numberAt < 0) continue;
      const at = (column: Column) => {
        const i = columns.indexOf(column);
        const text = i >= 0 && i !== numberAt ? texts[i] : undefined;
        return text && text.trim() !== '' ? text.trim() : null;
      };
      const date = at('date');
      rows.push({ applicationNumber: numbers[numberAt]!, status: at('status'), reference: at('reference'), date: date ? (/\d{4}-\d{2}-\d{2}/.exec(date)?.[0] ?? date) : null });
    }
  }
  return rows;
}
