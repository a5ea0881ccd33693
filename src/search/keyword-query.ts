import type { EntityManager } from '@mikro-orm/postgresql';

export interface SqlFragment {
  sql: string;
  params: unknown[];
}

/**
 * The words of a plain keyword query, which the typo fallback may match one by one; null when the query
 * uses websearch syntax (a quote, a -exclusion or `or`), which the fallback must not loosen.
 */
function plainWords(q: string): string[] | null {
  if (q.includes('"') || /(^|\s)-/.test(q) || /(^|\s)or(\s|$)/i.test(q)) return null;
  return q.split(/\s+/).filter(Boolean);
}

export interface KeywordSearch {
  /** Full-text match of the whole query (websearch syntax) in the metadata or a file's text; GIN-indexed. */
  strict: SqlFragment;
  /** The typo fallback, tried only when `strict` finds nothing; null when the query uses websearch syntax. */
  fuzzy: SqlFragment | null;
  rank: SqlFragment;
}

/**
 * Keyword search over `datasets d`, as SQL fragments that the listing (and the benchmark's raw-SQL
 * baseline) put into their queries.
 *
 * First the whole query as full text. Only when that finds nothing (a typo, or a draft, which has no
 * search document) does the fallback run: every word must match by keyword or by trigram word
 * similarity to the name or title (`<%`, threshold set per connection in src/db.ts); stop words are
 * left out unless the query is nothing else. "Phrases", -exclusions and `or` get no fallback: they
 * mean exactly what they say.
 */
export async function keywordSearch(em: EntityManager, language: string, q: string): Promise<KeywordSearch> {
  // The text the pipeline extracted from files counts too, at half the weight of a description.
  const inContents = `d.id in (select sp.dataset_id from search_points sp
                                where sp.index = 'contents' and sp.text_vector @@ websearch_to_tsquery(?::regconfig, unaccent(?)))`;
  const rank = {
    sql: `ts_rank_cd(coalesce(d.search_vector, ''::tsvector), websearch_to_tsquery(?::regconfig, unaccent(?)))
          + greatest(word_similarity(?, d.name), word_similarity(?, coalesce(d.title, '')))
          + 0.5 * coalesce((select max(ts_rank_cd(sp.text_vector, websearch_to_tsquery(?::regconfig, unaccent(?))))
                              from search_points sp where sp.dataset_id = d.id and sp.index = 'contents'), 0)`,
    params: [language, q, q, q, language, q],
  };
  const strict = { sql: `(d.search_vector @@ websearch_to_tsquery(?::regconfig, unaccent(?)) or ${inContents})`, params: [language, q, language, q] };
  const words = plainWords(q);
  if (!words) return { strict, fuzzy: null, rank };

  const lexemes = await em.getConnection().execute<{ tsq: string }[]>(
    `select websearch_to_tsquery(?::regconfig, unaccent(w))::text as tsq
       from unnest(array[${words.map(() => '?').join(', ')}]::text[]) with ordinality as x(w, i) order by i`,
    [language, ...words],
  );
  const terms = words.map((w, i) => ({ w, tsq: lexemes[i]!.tsq }));
  const meaningful = terms.some((x) => x.tsq !== '') ? terms.filter((x) => x.tsq !== '') : terms;
  const fuzzy = {
    sql: meaningful.map((x) => (x.tsq ? '(d.search_vector @@ ?::tsquery or ? <% d.name or ? <% d.title)' : '(? <% d.name or ? <% d.title)')).join(' and '),
    params: meaningful.flatMap((x) => (x.tsq ? [x.tsq, x.w, x.w] : [x.w, x.w])),
  };
  return { strict, fuzzy, rank };
}
