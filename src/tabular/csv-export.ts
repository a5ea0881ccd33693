/**
 * CSV the site writes for people to open (exports, the SQL console's downloads among them: DuckDB writes
 * the file, src/query/export-sql.ts applies this rule in SQL). A cell a spreadsheet
 * would run as a formula (it starts with `=`, `+`, `-`, `@`, a tab or a carriage return) is written with a
 * leading `'`, as OWASP advises against CSV injection: a crafted query link must not make a visitor's
 * spreadsheet call out. A number keeps its sign; the API's JSON answers stay exact.
 */
const FORMULA_START = /^[=+\-@\t\r]/;
const PLAIN_NUMBER = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;

export function neutralizeFormula(text: string): string {
  return FORMULA_START.test(text) && !PLAIN_NUMBER.test(text) ? `'${text}` : text;
}
