import type { DuckDBDataChunk } from '@duckdb/node-api';
import duckdb from '@duckdb/node-bindings';

/**
 * A BLOB column's values read out of DuckDB a chunk at a time, as one buffer, for the XLSX export's sheet
 * rows (export-run.ts). Value by value (node-api's getItem), each value is a call into DuckDB and a buffer
 * of its own: about a second of this process's thread per 250 MB of sheet, half the export's CPU on top
 * of DuckDB's. But a chunk's values mostly lie end to end in DuckDB's memory (each value is written into
 * the vector's string arena after the one before: runs of ~256 values of the bench preview), so a whole
 * run is read in one call. Only the exact bytes of the values themselves are read: a run goes on only
 * while each value starts where the one before it ends, as their own pointers say.
 */

/** DuckDB's string_t: 4 bytes of length, then the bytes themselves if 12 or fewer, else a 4-byte prefix and an 8-byte pointer. */
const ENTRY = 16;
const INLINE = 12;
const TWO_32 = 2 ** 32;

/** Every value of `column`, which has no nulls (their entries hold no bytes), one after the other. */
export function blobColumnBytes(chunk: DuckDBDataChunk, column: number): Buffer {
  const rows = chunk.rowCount;
  const entries = duckdb.vector_get_data(duckdb.data_chunk_get_vector(chunk.chunk, column), rows * ENTRY);
  const view = new DataView(entries.buffer, entries.byteOffset, entries.byteLength);
  const length = (row: number) => view.getUint32(row * ENTRY, true);
  // The pointer as a number: exact below 2^53, which user-space addresses are.
  const pointer = (row: number) => view.getUint32(row * ENTRY + 8, true) + view.getUint32(row * ENTRY + 12, true) * TWO_32;
  const parts: Uint8Array[] = [];
  let total = 0;
  for (let row = 0; row < rows;) {
    const start = row;
    let bytes = length(row);
    if (bytes <= INLINE) {
      parts.push(entries.subarray(row * ENTRY + 4, row * ENTRY + 4 + bytes));
      row++;
    } else {
      const first = pointer(row);
      for (row++; row < rows && length(row) > INLINE && pointer(row) === first + bytes; row++) bytes += length(row);
      parts.push(duckdb.get_data_from_pointer(entries.buffer as ArrayBuffer, entries.byteOffset + start * ENTRY + 8, bytes));
    }
    total += bytes;
  }
  return Buffer.concat(parts, total);
}
