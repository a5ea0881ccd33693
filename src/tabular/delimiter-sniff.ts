/**
 * A light, quote-aware look at the first records of some text to tell "delimited table" from "other
 * text", and comma from tab. It only labels the file (CSV, TSV or plain text); DuckDB's sniffer decides
 * the dialect that is actually used to read it.
 */

export type Delimiter = ',' | ';' | '\t' | '|';

const CANDIDATES: readonly Delimiter[] = [',', '\t', ';', '|'];
const MAX_RECORDS = 200;

export interface DelimiterGuess {
  delimiter: Delimiter | null;
  /** Non-blank records looked at. */
  records: number;
  /**
   * The guess would hold without a declared CSV/TSV behind it: nearly every record has the same number
   * of delimiters, there are at least two records, and the cells are not sentences (prose with a comma or
   * two per line is consistent too).
   */
  confident: boolean;
}

/** Share of records that must agree on the delimiter count for a guess to be confident. */
const CONFIDENT_CONSISTENCY = 0.9;
/** A cell of this many words or more reads as a sentence. */
const SENTENCE_WORDS = 6;

/**
 * `complete` says `text` is the whole file; otherwise its last, possibly cut, record is ignored.
 * A delimiter wins when most records contain it the same number of times (at least half of them, so a
 * title line or two above the table does not hide it); consistency beats frequency.
 */
export function sniffDelimiter(text: string, complete: boolean): DelimiterGuess {
  const records = splitRecords(text, complete);
  if (records.length === 0) return { delimiter: null, records: 0, confident: false };
  let best: { delimiter: Delimiter; consistency: number; mode: number } | null = null;
  for (const delimiter of CANDIDATES) {
    const counts = records.map((record) => countOutsideQuotes(record, delimiter));
    const mode = modeOfPositive(counts);
    if (mode === 0) continue;
    const consistency = counts.filter((count) => count === mode).length / counts.length;
    if (consistency < 0.5) continue;
    if (!best || consistency > best.consistency || (consistency === best.consistency && mode > best.mode)) {
      best = { delimiter, consistency, mode };
    }
  }
  if (!best) return { delimiter: null, records: records.length, confident: false };
  const confident = best.consistency >= CONFIDENT_CONSISTENCY && records.length >= 2 && sentenceShare(records, best.delimiter) <= 0.5;
  return { delimiter: best.delimiter, records: records.length, confident };
}

/** Share of cells, outside the first record (a header), that read as sentences. */
function sentenceShare(records: string[], delimiter: Delimiter): number {
  const cells = records.slice(1).flatMap((record) => record.split(delimiter));
  if (cells.length === 0) return 0;
  return cells.filter((cell) => cell.trim().split(/\s+/).length >= SENTENCE_WORDS).length / cells.length;
}

function splitRecords(text: string, complete: boolean): string[] {
  const records: string[] = [];
  let inQuotes = false;
  let start = 0;
  for (let i = 0; i < text.length && records.length <= MAX_RECORDS; i++) {
    const char = text[i];
    if (char === '"') inQuotes = !inQuotes;
    else if (!inQuotes && (char === '\n' || char === '\r')) {
      records.push(text.slice(start, i));
      if (char === '\r' && text[i + 1] === '\n') i++;
      start = i + 1;
    }
  }
  if (complete && start < text.length && records.length <= MAX_RECORDS) records.push(text.slice(start));
  return records.filter((record) => record.trim() !== '').slice(0, MAX_RECORDS);
}

function countOutsideQuotes(record: string, delimiter: Delimiter): number {
  let inQuotes = false;
  let count = 0;
  for (const char of record) {
    if (char === '"') inQuotes = !inQuotes;
    else if (char === delimiter && !inQuotes) count++;
  }
  return count;
}

function modeOfPositive(counts: number[]): number {
  const frequency = new Map<number, number>();
  for (const count of counts) if (count > 0) frequency.set(count, (frequency.get(count) ?? 0) + 1);
  let mode = 0;
  let seen = 0;
  for (const [count, times] of frequency) {
    if (times > seen || (times === seen && count > mode)) {
      mode = count;
      seen = times;
    }
  }
  return mode;
}
