import { pgArray } from '../db.ts';
import type { EntityManager, Knex } from '@mikro-orm/postgresql';

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

/**
 * What the shortlist looks for in a title for one stem: the stem, or the start it shares with its word when
 * stemming rewrote the word's end ("quality" → "qualiti", "energy" → "energi": neither is in "Water Quality"
 * or "Energy Use"). A stem of a part of the word ("19" of "covid-19") stays itself.
 */
export function titleProbe(stem: string, word: string): string {
  let shared = 0;
  while (shared < stem.length && stem[shared] === word[shared]) shared++;
  return shared === stem.length || shared < Math.max(3, stem.length - 2) ? stem : stem.slice(0, shared);
}

export interface KeywordSearch {
  /** Full-text match of the whole query (websearch syntax) in the metadata or a file's text; GIN-indexed. */
  strict: SqlFragment;
  /** The typo fallback, tried only when `strict` finds nothing; null when the query uses websearch syntax. */
  fuzzy: SqlFragment | null;
  rank: SqlFragment;
  /**
   * Which matches are worth ranking: how many of the query's stems the title or name holds, read from the
   * row itself (no search document, no trigram), so choosing among a hundred thousand matches stays cheap.
   */
  shortlist: SqlFragment;
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
/** Datasets whose file text matches, at most this many (best first, within the scope): file text ranks below metadata anyway. */
const CONTENT_MATCHES = 2_000;

export async function keywordSearch(em: EntityManager, language: string, q: string, scope?: Knex.QueryBuilder): Promise<KeywordSearch> {
  // The text the pipeline extracted from files counts too, at half the weight of a description. Its
  // matches are looked up first, on their own GIN index, and come in as a list of ids: an OR with a
  // subquery would cost the metadata match its index.
  // `scope` (the ids the caller's filters and visibility leave) applies inside this lookup, before its cap.
  const words = plainWords(q);
  // The words' lexemes (for the typo fallback) are asked beside the file-text lookup, not after it.
  const lexemesAsked = words
    ? em.getConnection().execute<{ tsq: string }[]>(
        `select websearch_to_tsquery(?::regconfig, unaccent(w))::text as tsq
           from unnest(array[${words.map(() => '?').join(', ')}]::text[]) with ordinality as x(w, i) order by i`,
        [language, ...words],
      )
    : undefined;
  // Each word's stems beside the word itself: the shortlist looks for them in titles as written.
  const stemsAsked = em.getConnection().execute<{ stem: string; word: string }[]>(
    `select distinct t.lexeme as stem, lower(unaccent(w)) as word
       from regexp_split_to_table(?, '\\s+') as w, unnest(to_tsvector(?::regconfig, unaccent(w))) as t`,
    [q, language],
  );
  // Awaited below; if the lookup beside them fails first, their failures must not go unhandled.
  lexemesAsked?.catch(() => undefined);
  stemsAsked.catch(() => undefined);
  const contents: Array<{ id: string; rank: number }> = (
    await em.getKnex().raw(
      `select sp.dataset_id as id, max(ts_rank_cd(sp.text_vector, websearch_to_tsquery(?::regconfig, unaccent(?)))) as rank
         from search_points sp
        where sp.index = 'contents' and sp.text_vector @@ websearch_to_tsquery(?::regconfig, unaccent(?))
          ${scope ? 'and sp.dataset_id in (?)' : ''}
        group by sp.dataset_id order by rank desc limit ?`,
      [language, q, language, q, ...(scope ? [scope] : []), CONTENT_MATCHES],
    )
  ).rows;
  const ids = pgArray(contents.map((c) => c.id));
  const ranks = `{${contents.map((c) => c.rank).join(',')}}`;
  const metadataRank = `ts_rank_cd(coalesce(d.search_vector, ''::tsvector), websearch_to_tsquery(?::regconfig, unaccent(?)))
          + greatest(word_similarity(?, d.name), word_similarity(?, coalesce(d.title, '')))`;
  const metadataMatch = 'd.search_vector @@ websearch_to_tsquery(?::regconfig, unaccent(?))';
  const rank = contents.length
    ? {
        sql: `${metadataRank} + 0.5 * coalesce((select c.rank from unnest(?::uuid[], ?::float8[]) as c(id, rank) where c.id = d.id), 0)`,
        params: [language, q, q, q, ids, ranks],
      }
    : { sql: metadataRank, params: [language, q, q, q] };
  const strict = contents.length
    ? { sql: `(${metadataMatch} or d.id = any(?::uuid[]))`, params: [language, q, ids] }
    : { sql: metadataMatch, params: [language, q] };
  const stems = [...new Set((await stemsAsked).map((row) => titleProbe(row.stem, row.word)))];
  // The title and the name apart, no string built per row, and the title lowered in the "C" collation
  // (ASCII letters only): ~1 µs a row against ~3 for the locale's lowercasing of the concatenation; at a
  // million datasets "medicare" has 73k matches, and choosing its shortlist took 272 → 210 ms. Stems are
  // unaccented and lowercase, and a name is a lowercase slug. A title in capitals of another script (Greek,
  // Cyrillic) is not lowered: it only loses this preference, never its match or its rank.
  const shortlist = stems.length
    ? {
        sql: stems.map(() => `(strpos(lower(coalesce(d.title, '') collate "C"), ?) > 0 or strpos(d.name, ?) > 0)::int`).join(' + '),
        params: stems.flatMap((stem) => [stem, stem]),
      }
    : { sql: '0', params: [] };
  if (!words || !lexemesAsked) return { strict, fuzzy: null, rank, shortlist };

  const lexemes = await lexemesAsked;
  const terms = words.map((w, i) => ({ w, tsq: lexemes[i]!.tsq }));
  const meaningful = terms.some((x) => x.tsq !== '') ? terms.filter((x) => x.tsq !== '') : terms;
  const fuzzy = {
    sql: meaningful
      .map((x) => (x.tsq ? '(d.search_vector @@ ?::tsquery or ? <% d.name or ? <% d.title)' : '(? <% d.name or ? <% d.title)'))
      .join(' and '),
    params: meaningful.flatMap((x) => (x.tsq ? [x.tsq, x.w, x.w] : [x.w, x.w])),
  };
  return { strict, fuzzy, rank, shortlist };
}
