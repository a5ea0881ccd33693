/** Bars per histogram. */
export const BINS = 12;

export interface NumericColumn {
  name: string;
  min: number;
  max: number;
}

/** A column name as a DuckDB identifier: quoted, inner quotes doubled, so any header is safe. */
export const quoteIdentifier = (name: string) => `"${name.replaceAll('"', '""')}"`;

/**
 * One SELECT that counts each numeric column's values into BINS equal-width bins between its min and max
 * (from the preview's schema): rows of (column index, bin, count). Empty when no column has a range.
 */
export function histogramSql(columns: NumericColumn[]): string | null {
  const parts = columns.flatMap((column, index) => {
    const bin = (column.max - column.min) / BINS;
    if (!Number.isFinite(bin) || bin <= 0) return [];
    const value = `cast(${quoteIdentifier(column.name)} as double)`;
    // NaN and ±Infinity have no bin (the schema's min and max leave them out too).
    return [
      `select ${index} as c, greatest(0, least(${BINS - 1}, cast(floor((${value} - ${column.min}) / ${bin}) as integer))) as b, count(*) as n ` +
        `from data where isfinite(${value}) group by all`,
    ];
  });
  return parts.length ? parts.join(' union all ') : null;
}

/** The counts per bin of each column, from histogramSql's rows (values may come back as strings). */
export function binsByColumn(rows: Array<Record<string, unknown>>, columnCount: number): number[][] {
  const bins = Array.from({ length: columnCount }, () => new Array<number>(BINS).fill(0));
  for (const row of rows) {
    const column = Number(row.c);
    const bin = Number(row.b);
    if (bins[column] && bin >= 0 && bin < BINS) bins[column]![bin] = Number(row.n);
  }
  return bins;
}
