import type { EntityManager } from '@mikro-orm/postgresql';

/**
 * Writes a dataset's keyword search document: title and name weigh A, tags B, notes C, resource names
 * and descriptions D, all unaccented, in the configured language. Only an active dataset has one, so
 * drafts and deleted datasets can never match a search. Idempotent: it rebuilds from the row each time.
 */
export async function writeKeywordDocument(em: EntityManager, datasetId: string, language: string): Promise<boolean> {
  const rows = await em.execute<{ id: string }[]>(
    `update datasets d set search_vector = case when d.state = 'active' then
         setweight(to_tsvector(?::regconfig, unaccent(coalesce(d.title, '') || ' ' || replace(d.name, '-', ' '))), 'A')
      || setweight(to_tsvector(?::regconfig, unaccent(coalesce(
           (select string_agg(t.name, ' ') from dataset_tags dt join tags t on t.id = dt.tag_id where dt.dataset_id = d.id), ''))), 'B')
      || setweight(to_tsvector(?::regconfig, unaccent(coalesce(d.notes, ''))), 'C')
      || setweight(to_tsvector(?::regconfig, unaccent(coalesce(
           (select string_agg(coalesce(r.name, '') || ' ' || coalesce(r.description, ''), ' ') from resources r where r.dataset_id = d.id), ''))), 'D')
       else null end
     where d.id = ?
     returning d.id`,
    [language, language, language, language, datasetId],
  );
  return rows.length > 0;
}
