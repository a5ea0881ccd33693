import { neutralizeFormula } from '../tabular/csv-export.ts';
import { sqlIdentifier, sqlString } from '../tabular/duckdb-session.ts';

/**
 * The SELECT lists an export writes through DuckDB, so that the per-value work runs in DuckDB's threads
 * rather than in JavaScript: CSV with spreadsheet formulas neutralized, and XLSX rows rendered as XML.
 */

export interface ExportColumn {
  name: string;
  /** DuckDB's type name: `BIGINT`, `DOUBLE`, `DECIMAL(18,3)`, `VARCHAR`… */
  type: string;
}

const INTEGER = /^(TINYINT|SMALLINT|INTEGER|BIGINT|HUGEINT|UTINYINT|USMALLINT|UINTEGER|UBIGINT|UHUGEINT)$/;
const FRACTIONAL = /^(FLOAT|DOUBLE|DECIMAL.*)$/;

/**
 * csv-export.ts's rule in SQL: a text cell a spreadsheet would run as a formula gets a leading `'`
 * (OWASP's advice against CSV injection); a number written as text keeps its sign. Other columns as they are.
 */
export function csvSelectList(columns: ExportColumn[]): string {
  return columns
    .map(({ name, type }) => {
      const c = sqlIdentifier(name);
      // The header is text from the query too (`SELECT 1 AS "=cmd"`).
      const as = sqlIdentifier(neutralizeFormula(name));
      if (type !== 'VARCHAR') return `${c} AS ${as}`;
      return `CASE WHEN left(${c}, 1) IN ('=', '+', '-', '@', chr(9), chr(13)) AND NOT regexp_full_match(${c}, '[+-]?(\\d+\\.?\\d*|\\.\\d+)([eE][+-]?\\d+)?') THEN '''' || ${c} ELSE ${c} END AS ${as}`;
    })
    .join(', ');
}

/**
 * JSON lines with values as the query's JSON answer gives them (json-values.ts): NaN and the infinities
 * as text (DuckDB writes them bare, which is no JSON: JSON.parse refuses the line), timestamps in ISO 8601.
 * JSON-typed columns are written as they are.
 */
export function jsonSelectList(columns: ExportColumn[]): string {
  return columns
    .map(({ name, type }) => {
      const c = sqlIdentifier(name);
      if (type === 'DOUBLE' || type === 'FLOAT') {
        return `CASE WHEN ${c} IS NULL OR isfinite(${c}) THEN to_json(${c}) WHEN isnan(${c}) THEN to_json('NaN') WHEN ${c} > 0 THEN to_json('Infinity') ELSE to_json('-Infinity') END AS ${c}`;
      }
      if (/^TIMESTAMP(_S|_MS|_NS)?$/.test(type)) return `regexp_replace(${c}::VARCHAR, '^(-?\\d{4,}-\\d\\d-\\d\\d) ', '\\1T') AS ${c}`;
      if (type === 'TIMESTAMP WITH TIME ZONE') {
        return `regexp_replace(regexp_replace(regexp_replace(${c}::VARCHAR, '^(-?\\d{4,}-\\d\\d-\\d\\d) ', '\\1T'), '([+-]\\d\\d)$', '\\1:00'), '[+-]00:00$', 'Z') AS ${c}`;
      }
      return c;
    })
    .join(', ');
}

/** What needs escaping in XML text: markup, characters XML 1.0 cannot hold, line breaks and tabs. */
const NEEDS_ESCAPING = '[&<>\\x00-\\x1F\\x{FFFE}\\x{FFFF}]';

/**
 * Text as the content of an XML element: characters XML 1.0 cannot hold are dropped, markup escaped,
 * and line breaks written as references, so that `\r` survives XML's line-end normalization.
 */
const xmlText = (expr: string) =>
  `replace(replace(replace(replace(replace(regexp_replace(${expr}, '[\\x00-\\x08\\x0B\\x0C\\x0E-\\x1F\\x{FFFE}\\x{FFFF}]', '', 'g'), '&', '&amp;'), '<', '&lt;'), '>', '&gt;'), chr(13), '&#13;'), chr(10), '&#10;')`;

/**
 * A text cell. Most text has nothing to escape and no white space at either end: one scan decides,
 * and such text is written as it is, without `xml:space="preserve"`, which a spreadsheet needs only to
 * keep white space at the ends (openpyxl's rule too); the attribute was a fifth of the bench's sheet.
 */
const inlineString = (expr: string) =>
  `CASE WHEN NOT regexp_matches(${expr}, '${NEEDS_ESCAPING}|^ | $') THEN concat('<c t="inlineStr"><is><t>', ${expr}, '</t></is></c>') ` +
  `ELSE concat('<c t="inlineStr"><is><t xml:space="preserve">', ${xmlText(expr)}, '</t></is></c>') END`;

/** One cell of a sheet row; `<c/>` for null, so that the cells after it keep their columns. */
function xlsxCell({ name, type }: ExportColumn): string {
  const c = sqlIdentifier(name);
  let cell: string;
  if (type === 'BOOLEAN') cell = `concat('<c t="b"><v>', ${c}::INTEGER, '</v></c>')`;
  else if (INTEGER.test(type)) {
    // A spreadsheet's numbers are doubles: an integer beyond 2^53 is kept exact as text.
    cell = `CASE WHEN ${c} BETWEEN -9007199254740991 AND 9007199254740991 THEN concat('<c><v>', ${c}, '</v></c>') ELSE ${inlineString(`${c}::VARCHAR`)} END`;
  } else if (FRACTIONAL.test(type)) {
    // NaN and the infinities have no spreadsheet number: text, as DuckDB spells them.
    cell = `CASE WHEN isfinite(${c}::DOUBLE) THEN concat('<c><v>', ${c}::VARCHAR, '</v></c>') ELSE ${inlineString(`${c}::VARCHAR`)} END`;
  } else if (/^(DATE|TIME|TIMESTAMP|UUID)/.test(type)) {
    // Their text has nothing to escape.
    cell = `concat('<c t="inlineStr"><is><t>', ${c}::VARCHAR, '</t></is></c>')`;
  } else cell = inlineString(`${c}::VARCHAR`);
  // concat() reads a null as '': the null test comes first.
  return `CASE WHEN ${c} IS NULL THEN '<c/>' ELSE ${cell} END`;
}

/**
 * One BLOB column, `row`: each row of the source as a sheet's `<row>` element, in UTF-8. Bytes rather
 * than text, so that this process copies them as they are (blob-column.ts) instead of decoding and
 * encoding them again.
 */
export function xlsxRowSelect(columns: ExportColumn[], source: string): string {
  // One concat() of every cell: a chain of || copies the growing row once per cell.
  return `SELECT encode(concat('<row>', ${[...columns.map(xlsxCell), "'</row>'"].join(', ')})) AS row FROM ${source}`;
}

/** The header row: the column names as text cells. */
export function xlsxHeaderRow(columns: ExportColumn[]): string {
  const escape = (text: string) =>
    text
      // eslint-disable-next-line no-control-regex -- the characters XML 1.0 cannot hold
      .replace(/[\x00-\x08\x0B\x0C\x0E-\x1F\uFFFE\uFFFF]/g, '')
      .replaceAll('&', '&amp;')
      .replaceAll('<', '&lt;')
      .replaceAll('>', '&gt;')
      .replaceAll('\r', '&#13;')
      .replaceAll('\n', '&#10;');
  return `<row>${columns.map(({ name }) => `<c t="inlineStr"><is><t xml:space="preserve">${escape(name)}</t></is></c>`).join('')}</row>`;
}

/** `COPY (select) TO 'path' (options)` for the formats DuckDB writes itself. */
export function copyTo(select: string, target: string, options: string): string {
  return `COPY (${select}) TO ${sqlString(target)} (${options})`;
}
