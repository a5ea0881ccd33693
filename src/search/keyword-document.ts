import type { EntityManager } from '@mikro-orm/postgresql';
import { pgArray } from '../db.ts';

/** The words of the metadata record people search by: its themes, its publisher, the places it covers. */
const RECORD_WORDS = `coalesce((select string_agg(w, ' ') from (
    select e ->> 'label' from jsonb_array_elements(coalesce(d.metadata -> 'theme', '[]')) e union all
    select d.metadata -> 'publisher' ->> 'name' union all
    select e ->> 'name' from jsonb_array_elements(coalesce(d.metadata -> 'spatial', '[]')) e) as words(w)), '')`;

/**
 * The keyword search document of a dataset: title and name weigh A, tags and the record's words (themes,
 * publisher, place names) B, notes C, resource names and descriptions D, all unaccented, in the configured language. Only an active dataset has one, so drafts
 * and deleted datasets can never match a search. Rebuilt from the rows each time: idempotent. Four parameters: the language.
 */
const DOCUMENT = `case when d.state = 'active' then
       setweight(to_tsvector(?::regconfig, unaccent(coalesce(d.title, '') || ' ' || replace(d.name, '-', ' '))), 'A')
    || setweight(to_tsvector(?::regconfig, unaccent(coalesce(
         (select string_agg(t.name, ' ') from dataset_tags dt join tags t on t.id = dt.tag_id where dt.dataset_id = d.id), '')
         || ' ' || ${RECORD_WORDS})), 'B')
    || setweight(to_tsvector(?::regconfig, unaccent(coalesce(d.notes, ''))), 'C')
    || setweight(to_tsvector(?::regconfig, unaccent(coalesce(
         (select string_agg(coalesce(r.name, '') || ' ' || coalesce(r.description, ''), ' ') from resources r where r.dataset_id = d.id), ''))), 'D')
     else null end`;

/** The ids among `datasetIds` that have a row (a document when active, none otherwise). */
export async function writeKeywordDocuments(em: EntityManager, datasetIds: string[], language: string): Promise<Set<string>> {
  // Each row is locked, written or not, so two syncs of one dataset still take turns; only a document that
  // changed is written (a reindex of an unchanged catalog rewrote every dataset's row).
  const rows = await em.execute<{ id: string }[]>(
    `with doc as materialized (
       select d.id, ${DOCUMENT} as document from datasets d where d.id = any(?::uuid[]) for no key update of d),
     written as (
       update datasets d set search_vector = doc.document from doc
        where d.id = doc.id and d.search_vector is distinct from doc.document)
     select id from doc`,
    [language, language, language, language, pgArray(datasetIds)],
  );
  return new Set(rows.map((r) => r.id));
}

/** Every active dataset at once (a bulk load, a change of language). */
export async function writeAllKeywordDocuments(em: EntityManager, language: string): Promise<number> {
  const rows = await em.execute<{ id: string }[]>(
    `update datasets d set search_vector = ${DOCUMENT} where d.state = 'active' returning d.id`,
    [language, language, language, language],
  );
  return rows.length;
}
