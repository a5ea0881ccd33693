import { DataFactory, type NamedNode } from 'n3';
import type { FieldTable } from '../domain/datasets/field-table.ts';
import { PREFIXES } from './vocabulary.ts';

/**
 * The fields the tables (src/domain/datasets/field-table.ts, src/domain/resources/field-table.ts) map to
 * one property of a feed, written where each feed lists its plain values; the fields a feed composes
 * from several are written out in that feed.
 */

/** The feeds' prefixes and the two DCAT-AP adds, which the documents do not declare. */
const NAMESPACES: Record<string, string> = {
  ...PREFIXES,
  adms: 'http://www.w3.org/ns/adms#',
  skos: 'http://www.w3.org/2004/02/skos/core#',
};

function expand(curie: string): NamedNode {
  const [prefix, local] = curie.split(':') as [string, string];
  const namespace = NAMESPACES[prefix];
  if (!namespace) throw new Error(`field table: unknown prefix in ${curie}`);
  return DataFactory.namedNode(namespace + local);
}

export interface DcatProperty {
  field: string;
  property: NamedNode;
  iri: boolean;
}

/** A table's DCAT properties, expanded once, so an unknown prefix fails at start rather than in a feed. */
export const dcatProperties = (table: FieldTable): DcatProperty[] =>
  Object.entries(table).flatMap(([field, f]) =>
    f.feeds?.dcat ? [{ field, property: expand(f.feeds.dcat.property), iri: f.feeds.dcat.iri === true }] : [],
  );

/** The fields `feed` takes as they are, under its keys, each only when it holds text. */
export function plainFields(table: FieldTable, source: object, feed: 'dataJson' | 'schemaOrg'): Record<string, string> {
  const values = source as Record<string, unknown>;
  return Object.fromEntries(
    Object.entries(table).flatMap(([field, f]) => {
      const key = f.feeds?.[feed];
      const value = values[field];
      return key && typeof value === 'string' && value ? [[key, value]] : [];
    }),
  );
}
