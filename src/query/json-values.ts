import { DuckDBTypeId, JsonDuckDBValueConverter, type DuckDBValueConverter, type Json } from '@duckdb/node-api';

/**
 * Result values as JSON, the way the spec's query record wants them: DuckDB's own JSON conversion
 * (64-bit and larger integers and decimals as strings, NaN and infinities as text, blobs as DuckDB's
 * escaped text), with timestamps in ISO 8601 (`2024-05-01T12:30:00`, `…Z` with a time zone) rather
 * than DuckDB's SQL spelling. Nested lists, structs and maps recurse through this converter too.
 */
export const queryValueConverter: DuckDBValueConverter<Json> = (value, type, converter) => {
  switch (type.typeId) {
    case DuckDBTypeId.TIMESTAMP:
    case DuckDBTypeId.TIMESTAMP_S:
    case DuckDBTypeId.TIMESTAMP_MS:
    case DuckDBTypeId.TIMESTAMP_NS:
      return value === null ? null : isoTimestamp(String(value));
    case DuckDBTypeId.TIMESTAMP_TZ:
      return value === null
        ? null
        : isoTimestamp(String(value))
            .replace(/([+-]\d\d)$/, '$1:00')
            .replace(/[+-]00:00$/, 'Z');
    default:
      return JsonDuckDBValueConverter(value, type, converter);
  }
};

/** `2024-05-01 12:30:00` → `2024-05-01T12:30:00`; `infinity` and other words stay as they are. */
const isoTimestamp = (text: string) => text.replace(/^(-?\d{4,}-\d\d-\d\d) /, '$1T');
