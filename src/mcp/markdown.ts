/**
 * A query result as a Markdown table an agent can read: pipes escaped, line breaks as `<br>`, nulls
 * shown as an empty cell, objects and lists as compact JSON.
 */
export function cell(value: unknown): string {
  if (value === null || value === undefined) return '';
  const text = typeof value === 'object' ? JSON.stringify(value) : String(value);
  return text
    .replace(/\\/g, '\\\\')
    .replace(/\|/g, '\\|')
    .replace(/\r\n|\r|\n/g, '<br>');
}

export function markdownTable(columns: string[], rows: Array<Record<string, unknown>>): string {
  if (columns.length === 0) return '(no columns)';
  const header = `| ${columns.map(cell).join(' | ')} |`;
  const rule = `| ${columns.map(() => '---').join(' | ')} |`;
  const body = rows.map((row) => `| ${columns.map((c) => cell(row[c])).join(' | ')} |`);
  return [header, rule, ...body].join('\n');
}

/** Words DuckDB reserves: a column named like one must be quoted even when it looks plain. */
const RESERVED = new Set(
  (
    'all analyse analyze and any array as asc asymmetric both case cast check collate column constraint create default deferrable desc ' +
    'distinct do else end except false fetch for foreign from grant group having in initially intersect into lateral leading limit ' +
    'not null offset on only or order placing primary references returning select symmetric table then to trailing true union ' +
    'unique using variadic when where window with'
  ).split(' '),
);

/** A column name as SQL over the table `data` needs it: bare when it is a plain lower-case identifier. */
export function sqlColumn(name: string): string {
  return /^[a-z_][a-z0-9_]*$/.test(name) && !RESERVED.has(name) ? name : `"${name.replaceAll('"', '""')}"`;
}
