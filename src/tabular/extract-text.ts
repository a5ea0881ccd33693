import { dirname } from 'node:path';
import { DuckDbSession, DuckDbStatementError, sqlString, type DuckDbLimits } from './duckdb-session.ts';
import { TabularError } from './errors.ts';

/** Budget of the text a resource contributes to the full-text "contents" index. */
export const DEFAULT_TEXT_MAX_BYTES = 64 * 1024;

export interface ExtractTextOptions {
  /** A preview written by `buildTabularPreview`; DuckDB is confined to its directory. */
  parquetPath: string;
  /** UTF-8 bytes of text at most. */
  maxBytes?: number;
  /** Rows looked at most, however short they are. */
  maxRows?: number;
  /** False when the names are DuckDB's `column0, column1…` (dialect.header false): they are noise. */
  includeHeader?: boolean;
  limits?: Partial<DuckDbLimits>;
}

// Per cell and per row caps keep one enormous field from crowding out the rest, and keep the rows
// fetched from DuckDB small whatever the table's width.
const CELL_CHARS = 512;
const LINE_CHARS = 8192;

/**
 * The column names and first rows of a preview as plain UTF-8 text: one row per line, cells separated by
 * tabs, whitespace inside cells collapsed to single spaces, control characters dropped, cut at a character
 * boundary to `maxBytes`.
 */
export async function extractText(options: ExtractTextOptions): Promise<string> {
  const maxBytes = options.maxBytes ?? DEFAULT_TEXT_MAX_BYTES;
  const maxRows = options.maxRows ?? 1000;
  const db = await DuckDbSession.open(dirname(options.parquetPath), options.limits);
  try {
    const source = `read_parquet(${sqlString(options.parquetPath)})`;
    const lines: string[] = [];
    if (options.includeHeader ?? true) {
      const names = await db.rows(`SELECT column_name FROM (DESCRIBE SELECT * FROM ${source})`);
      lines.push(names.map((row) => flatten(String(row.column_name))).join('\t'));
    }
    const rows = await db.rows(
      `SELECT left(concat_ws(chr(9), *COLUMNS(*)), ${LINE_CHARS}) AS line FROM (` +
        `SELECT coalesce(trim(regexp_replace(left(COLUMNS(*)::VARCHAR, ${CELL_CHARS}), '\\s+', ' ', 'g')), '') ` +
        `FROM ${source} LIMIT ${maxRows})`,
    );
    // Cells arrive with their whitespace already collapsed, so the only tabs left are the separators.
    for (const row of rows) lines.push(String(row.line ?? '').replace(CONTROL_CHARACTERS, ''));
    return cutToBytes(lines.join('\n'), maxBytes);
  } catch (error) {
    if (error instanceof DuckDbStatementError) throw new TabularError('unreadable', `The preview could not be read: ${error.message}`);
    throw error;
  } finally {
    await db.close();
  }
}

// eslint-disable-next-line no-control-regex -- control characters are exactly what this strips
const CONTROL_CHARACTERS = /[\u0000-\u0008\u000b-\u001f\u007f]/g;

function flatten(text: string): string {
  return text.replace(/\s+/g, ' ').replace(CONTROL_CHARACTERS, '').trim();
}

/** A streaming decoder holds back the bytes of a character cut in two, so the result stays valid UTF-8. */
function cutToBytes(text: string, maxBytes: number): string {
  const bytes = Buffer.from(text, 'utf8');
  if (bytes.length <= maxBytes) return text;
  return new TextDecoder('utf-8').decode(bytes.subarray(0, maxBytes), { stream: true });
}
