import { DuckDbStatementError, sqlString, type DuckDbSession } from './duckdb-session.ts';
import type { TabularKind } from './detect-format.ts';
import { TabularError } from './errors.ts';

/**
 * How a prepared UTF-8 CSV is read: DuckDB's own detection first, because for well-formed files its
 * dialect and types are the schema we promise; then, only when that fails or collapses the file into a
 * single column, the documented relaxations (null padding for ragged rows, non-strict mode for mixed line
 * endings and stray quotes). Types fall back to a full-file sample, then to all VARCHAR, only when a value
 * beyond DuckDB's sample does not fit the sniffed type.
 */

export type CsvOptions = Readonly<Record<string, string | number | boolean>>;

export interface CsvDialect {
  delimiter: string;
  /** null when fields are not quoted. */
  quote: string | null;
  /** null when no escape was seen; a doubled quote is then still read as one quote. */
  escape: string | null;
  header: boolean;
  newline: '\n' | '\r\n' | '\r' | null;
}

// parallel=false: DuckDB refuses null_padding with quoted newlines in its parallel scanner.
const RAGGED: CsvOptions = { null_padding: true, parallel: false };
const LENIENT: CsvOptions = { strict_mode: false };
const LENIENT_RAGGED: CsvOptions = { strict_mode: false, null_padding: true, parallel: false };

export function readCsvSql(path: string, options: CsvOptions): string {
  const settings = Object.entries({ compression: 'none', ...options }).map(
    ([key, value]) => `${key} = ${typeof value === 'string' ? sqlString(value) : String(value)}`,
  );
  return `read_csv(${[sqlString(path), ...settings].join(', ')})`;
}

/**
 * Picks the read options whose detection succeeds. A lone column is DuckDB's answer when rows disagree in
 * length (a ragged file looks like no delimiter at all); if null padding then reveals several columns, the
 * padded reading is the truthful one.
 */
export async function chooseCsvOptions(db: DuckDbSession, path: string, tabular: TabularKind): Promise<CsvOptions> {
  const ladder: CsvOptions[] = [
    {},
    RAGGED,
    LENIENT,
    LENIENT_RAGGED,
    // Last resort when DuckDB cannot settle on a dialect at all: the delimiter detectFormat saw.
    { ...LENIENT_RAGGED, delim: tabular === 'tsv' ? '\t' : ',' },
  ];
  let firstError: DuckDbStatementError | null = null;
  for (let index = 0; index < ladder.length; index++) {
    const options = ladder[index]!;
    const width = await columnCount(db, path, options);
    if (width instanceof DuckDbStatementError) {
      firstError ??= width;
      continue;
    }
    if (width === 1 && options.null_padding !== true) {
      // Only DuckDB's own delimiter detection may split the column; forcing one would cut prose at commas.
      const padded = ladder.slice(index + 1).filter((later) => later.null_padding === true && !('delim' in later));
      for (const candidate of padded) {
        const paddedWidth = await columnCount(db, path, candidate);
        if (typeof paddedWidth === 'number' && paddedWidth > 1) return candidate;
      }
    }
    return options;
  }
  throw new TabularError('unreadable', `No columns could be read: ${firstError?.message ?? 'unknown error'}`);
}

async function columnCount(db: DuckDbSession, path: string, options: CsvOptions): Promise<number | DuckDbStatementError> {
  try {
    return (await db.rows(`DESCRIBE SELECT * FROM ${readCsvSql(path, options)}`)).length;
  } catch (error) {
    if (error instanceof DuckDbStatementError) return error;
    throw error;
  }
}

/** Writes the Parquet preview and returns the options that finally read the whole file. */
export async function copyCsvToParquet(db: DuckDbSession, csvPath: string, parquetPath: string, chosen: CsvOptions): Promise<CsvOptions> {
  const attempts: CsvOptions[] = [chosen];
  let firstError: DuckDbStatementError | null = null;
  for (let index = 0; index < attempts.length; index++) {
    const options = attempts[index]!;
    try {
      await db.run(`COPY (SELECT * FROM ${readCsvSql(csvPath, options)}) TO ${sqlString(parquetPath)} (FORMAT parquet, COMPRESSION zstd)`);
      return options;
    } catch (error) {
      if (!(error instanceof DuckDbStatementError)) throw error;
      firstError ??= error;
      if (index === 0) attempts.push(...fallbacksAfter(chosen, error));
    }
  }
  throw new TabularError('unreadable', `No columns could be read: ${firstError?.message ?? 'unknown error'}`);
}

function fallbacksAfter(chosen: CsvOptions, error: DuckDbStatementError): CsvOptions[] {
  const lenient = { ...chosen, ...LENIENT_RAGGED };
  return [
    ...(error.isConversionError ? [{ ...chosen, sample_size: -1 }] : [lenient, { ...lenient, sample_size: -1 }]),
    { ...lenient, all_varchar: true },
  ];
}

/** The dialect DuckDB detected under the options that read the file. */
export async function sniffDialect(db: DuckDbSession, path: string, options: CsvOptions): Promise<CsvDialect> {
  const sniffed = readCsvSql(path, options).replace(/^read_csv\(/, 'sniff_csv(');
  const [row] = await db.rows(`SELECT Delimiter, Quote, Escape, NewLineDelimiter, HasHeader FROM ${sniffed}`);
  const text = (value: unknown) => (typeof value === 'string' && value !== '(empty)' ? value : null);
  return {
    delimiter: text(row?.Delimiter) ?? ',',
    quote: text(row?.Quote),
    escape: text(row?.Escape),
    header: row?.HasHeader === true,
    newline: NEWLINES[String(row?.NewLineDelimiter)] ?? null,
  };
}

// sniff_csv spells line breaks as escape sequences.
const NEWLINES: Record<string, CsvDialect['newline']> = { '\\n': '\n', '\\r\\n': '\r\n', '\\r': '\r' };
