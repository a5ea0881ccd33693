import { DATASET_RECORD } from '../domain/metadata/dataset-record.ts';

/**
 * The metadata record's inputs in the dataset form (issue 28 §3: "the edit form edits the core fields"):
 * the keys whose value a text control holds exactly, so saving never changes a value the form did not
 * touch. Structured values (publisher, contact points, themes, places with a geometry) keep what the
 * dataset holds: the form sends only the keys it shows, and the edit carries the others unchanged.
 * The API's own schema judges what is entered, so errors name the same paths as REST.
 */
export type RecordInputKind = 'text' | 'longText' | 'lines' | 'accessLevel' | 'boolean' | 'number' | 'periods' | 'bbox';
type RecordKey = keyof typeof DATASET_RECORD;

export const RECORD_INPUTS: Array<{ key: RecordKey; kind: RecordInputKind; label: string }> = [
  { key: 'temporal', kind: 'periods', label: 'Temporal coverage (one period a line: start/end, either may be empty)' },
  { key: 'spatial', kind: 'bbox', label: 'Spatial coverage: bounding box (W,S,E,N in degrees)' },
  { key: 'accrualPeriodicity', kind: 'text', label: 'Update frequency' },
  { key: 'language', kind: 'lines', label: 'Languages (one a line)' },
  { key: 'accessLevel', kind: 'accessLevel', label: 'Access level' },
  { key: 'rights', kind: 'longText', label: 'Rights' },
  { key: 'issued', kind: 'text', label: 'Issued at the source' },
  { key: 'modified', kind: 'text', label: 'Modified at the source' },
  { key: 'identifier', kind: 'text', label: 'Identifier at the source' },
  { key: 'conformsTo', kind: 'lines', label: 'Conforms to (IRIs, one a line)' },
  { key: 'references', kind: 'lines', label: 'References (URLs, one a line)' },
  { key: 'isPartOf', kind: 'lines', label: 'Part of (collections or series, one a line)' },
  { key: 'bureauCode', kind: 'lines', label: 'Bureau codes (one a line)' },
  { key: 'programCode', kind: 'lines', label: 'Program codes (one a line)' },
  { key: 'dataQuality', kind: 'boolean', label: 'Meets the information quality guidelines' },
  { key: 'versionNotes', kind: 'longText', label: 'Version notes' },
  { key: 'temporalResolution', kind: 'text', label: 'Temporal resolution (ISO 8601 duration)' },
  { key: 'spatialResolutionInMeters', kind: 'number', label: 'Spatial resolution (meters)' },
];

export type RecordFormValues = Record<string, string>;

/** A spatial coverage the box input holds exactly: none, or one place that is only a box. */
const boxOnly = (value: unknown): value is Array<{ bbox: number[] }> =>
  Array.isArray(value) && (value.length === 0 || (value.length === 1 && Object.keys(value[0] ?? {}).join() === 'bbox'));

/** The inputs a dataset's record can be edited with: the box only when it holds the coverage exactly. */
export const editableRecordInputs = (record: Record<string, unknown>) =>
  RECORD_INPUTS.filter((i) => i.kind !== 'bbox' || record.spatial == null || boxOnly(record.spatial));

function displayed(kind: RecordInputKind, value: unknown): string {
  if (value === null || value === undefined) return '';
  switch (kind) {
    case 'lines':
      return (value as string[]).join('\n');
    case 'periods':
      return (value as Array<{ start?: string | null; end?: string | null }>).map((p) => `${p.start ?? ''}/${p.end ?? ''}`).join('\n');
    case 'bbox':
      return boxOnly(value) && value.length ? value[0]!.bbox.join(',') : '';
    default:
      return String(value);
  }
}

export const recordValuesOfDataset = (record: Record<string, unknown>): RecordFormValues =>
  Object.fromEntries(editableRecordInputs(record).map((i) => [i.key, displayed(i.kind, record[i.key])]));

/** Only the controls the form had: a key it did not show is not sent, so the dataset keeps its value. */
export const recordValuesOfForm = (form: URLSearchParams): RecordFormValues =>
  Object.fromEntries(RECORD_INPUTS.filter((i) => form.has(i.key)).map((i) => [i.key, form.get(i.key) ?? '']));

const lines = (raw: string) =>
  raw
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter(Boolean);
/** A number where the text is one; otherwise the text, for the schema to name. */
const numeric = (s: string) => (s.trim() !== '' && Number.isFinite(Number(s)) ? Number(s) : s.trim());

function typed(kind: RecordInputKind, raw: string): unknown {
  const text = raw.trim();
  switch (kind) {
    case 'lines':
      return lines(raw);
    case 'periods':
      return lines(raw).map((line) => {
        const [start, end] = line.split('/').map((s) => s.trim());
        return { ...(start ? { start } : {}), ...(end ? { end } : {}) };
      });
    case 'bbox':
      return text ? [{ bbox: text.split(',').map(numeric) }] : [];
    case 'boolean':
      return text === '' ? null : text === 'true';
    case 'number':
      return text === '' ? null : numeric(text);
    default:
      return text === '' ? null : text;
  }
}

/** The record keys of a form post, typed as the API's body takes them. */
export const recordInputOfForm = (values: RecordFormValues) =>
  Object.fromEntries(RECORD_INPUTS.filter((i) => i.key in values).map((i) => [i.key, typed(i.kind, values[i.key]!)]));
