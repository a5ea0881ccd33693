/** One field of RFC 4180 CSV: quoted when it holds a comma, quote or line break. */
function field(value: unknown): string {
  if (value === null || value === undefined) return '';
  const text = typeof value === 'object' ? JSON.stringify(value) : String(value);
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/** A query's result as CSV text, header first, CRLF line ends. */
export function toCsv(columns: string[], rows: Array<Record<string, unknown>>): string {
  const lines = [columns.map(field).join(','), ...rows.map((row) => columns.map((c) => field(row[c])).join(','))];
  return `${lines.join('\r\n')}\r\n`;
}
