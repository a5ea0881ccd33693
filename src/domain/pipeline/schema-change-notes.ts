import type { SchemaChange, SchemaDiff } from './schema-diff.ts';

/**
 * A version's schema changes (schema-diff.ts) as one sentence for people, in the order the diff lists them:
 * what the feeds publish as a version's notes (`adms:versionNotes`, whose definition asks for the
 * differences with the version before, backward compatibility included). Each breaking change says so,
 * since that is what a consumer reading the notes needs to know first. Null when there is nothing to
 * tell: a first version (no diff), or one whose columns did not change.
 */
export function schemaChangeNotes(diff: SchemaDiff | null): string | null {
  if (!diff?.changes.length) return null;
  const sentence = diff.changes
    .map((change) => (change.impact === 'breaking' ? `${phrase(change)} (breaking)` : phrase(change)))
    .join('; ');
  return `${sentence[0]!.toUpperCase()}${sentence.slice(1)}.`;
}

/** A name as written, quoted when it is not one plain word (a space or punctuation would blur the sentence). */
const name = (column: string) => (/^[\p{L}\p{N}_]+$/u.test(column) ? column : JSON.stringify(column));

function phrase(change: SchemaChange): string {
  const column = `column ${name(change.column)}`;
  switch (change.kind) {
    case 'added':
      return `${column} added`;
    case 'removed':
      return `${column} removed`;
    case 'renamed':
      return `column ${name(change.previousName)} renamed to ${name(change.column)}`;
    case 'moved':
      // Positions count from 1 here: the diff's are indexes.
      return `${column} moved from position ${change.previousPosition + 1} to ${change.position + 1}`;
    case 'retyped':
      return `${column} changed from ${change.previousType} to ${change.type}`;
    case 'nullsAppeared':
      // Not how many: the count is the preview's, which may be the file's first part only.
      return `${column} now has empty values`;
  }
}
