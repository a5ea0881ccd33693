/**
 * CSV the site writes for people to open (the SQL console's `query.csv`, exports). A cell a spreadsheet
 * would run as a formula (it starts with `=`, `+`, `-`, `@`, a tab or a carriage return) is written with a
 * leading `'`, as OWASP advises against CSV injection: a crafted query link must not make a visitor's
 * spreadsheet call out. A number keeps its sign; the API's JSON answers stay exact.
 */
const FORMULA_START = /^[=+\-@\t\r]/;
const PLAIN_NUMBER = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;

export function neutralizeFormula(text: string): string {
  return FORMULA_START.test(text) && !PLAIN_NUMBER.test(text) ? `'${text}` : text;
}

/** One field of RFC 4180 CSV: quoted when it holds a comma, quote or line break. */
function field(value: unknown): string {
  if (value === null || value === undefined) return '';
  const text = neutralizeFormula(typeof value === 'object' ? JSON.stringify(value) : String(value));
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/** A table as CSV text, header first, CRLF line ends. */
export function toCsv(columns: string[], rows: Array<Record<string, unknown>>): string {
  const lines = [columns.map(field).join(','), ...rows.map((row) => columns.map((c) => field(row[c])).join(','))];
  return `${lines.join('\r\n')}\r\n`;
}
