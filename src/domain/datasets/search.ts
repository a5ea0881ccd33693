import type { Knex, QueryBuilder } from '@mikro-orm/postgresql';
import { Dataset, Group } from '../../entities/index.ts';
import { visibleVectorsFilter, type OrgRoles } from '../../policies/datasets.ts';
import { keywordSearch, type SqlFragment } from '../../search/keyword-query.ts';
import { fuse, semanticLists, type SemanticMatch, type SemanticStatus } from '../../search/semantic.ts';
import type { VectorFilter } from '../../search/vectors/vector-index.ts';
import type { Actor } from '../actor.ts';
import type { DomainContext } from '../context.ts';
import { isUuid } from '../ids.ts';
import { deletedOrgIds } from './access.ts';
import { likePattern } from '../like-pattern.ts';
import { applyRecordFilters, hasRecordFilters } from './list-filters.ts';
import type { DatasetListQuery } from './list-query.ts';

/**
 * GET /packages?q=: keyword and semantic retrieval fused by reciprocal rank. Both retrievers apply
 * every filter and the visibility rule inside (the SQL filter; the vector index's payload filter), and
 * the result set is one SQL predicate, `filtered AND (keyword match OR a semantic candidate)`, so the
 * count, every page and the facets describe the same datasets.
 */

export interface DatasetMatch {
  /** Found by keywords (title, name, tags, description, resource names, or the text of a file). */
  keyword: boolean;
  /** A passage of the description with the query's words at [start, end) offsets, when they occur there. */
  snippet?: { text: string; highlights: Array<[number, number]> };
  /** The semantic retrievers that found it, each with its closest passage. */
  semantic: Array<{ index: SemanticMatch['index']; score: number; resourceId?: string; text: string }>;
}

export interface SearchOutcome {
  /** The filtered builder narrowed to the result set (for sorting, counting and facets). */
  matched: QueryBuilder<Dataset>;
  total: number;
  /** Page ids in fused order; undefined when the caller sorts by a column instead. */
  pageIds?: string[];
  semantic: SemanticStatus | 'off';
  /** Why each dataset of a page matched. */
  explain(pageIds: string[]): Promise<Map<string, DatasetMatch>>;
}

const pgArray = (ids: string[]) => `{${ids.join(',')}}`;

/** The listing's filters as a vector filter; null when a filter names nothing, so nothing can match. */
async function vectorFilter(ctx: DomainContext, actor: Actor, roles: OrgRoles, query: DatasetListQuery): Promise<VectorFilter | null> {
  const filter: VectorFilter = visibleVectorsFilter(actor, roles, await deletedOrgIds(ctx), query.private === true);
  const groupIds = async (kind: 'organization' | 'category', refs: string[]) => {
    const ids = refs.filter(isUuid);
    const rows = await ctx.em.find(
      Group,
      { kind, $or: [{ name: { $in: refs } }, ...(ids.length ? [{ id: { $in: ids } }] : [])] },
      { fields: ['id'], disableIdentityMap: true },
    );
    return rows.map((g) => g.id);
  };
  if (query.organization) filter.orgIds = await groupIds('organization', query.organization);
  if (query.my_org) filter.orgIds = (filter.orgIds ?? [...roles.keys()]).filter((id) => roles.has(id));
  if (query.groups) filter.groups = await groupIds('category', query.groups);
  if (query.tags) filter.tags = query.tags;
  if (query.res_format) filter.formats = query.res_format.map((f) => f.trim().toUpperCase());
  if (query.license_id) filter.licenses = query.license_id;
  if (query.name || query.creator_user_id || hasRecordFilters(query)) {
    // Rare filters with no payload field: the SQL filter names the datasets they leave.
    const qb = ctx.em.createQueryBuilder(Dataset, 'd').select('d.id').where({ state: 'active' });
    if (query.name) qb.andWhere({ name: { $ilike: likePattern(query.name) } });
    if (query.creator_user_id) qb.andWhere({ creator: query.creator_user_id });
    applyRecordFilters(ctx, qb, query);
    // Raw rows: a coverage filter can leave tens of thousands of ids, not worth an entity each.
    filter.datasetIds = (await qb.execute<Array<{ id: string }>>('all', false)).map((d) => d.id);
  }
  const empty = [filter.orgIds, filter.groups, filter.datasetIds].some((list) => list !== undefined && list.length === 0);
  return empty ? null : filter;
}

const MARK_START = '\u0002';
const MARK_END = '\u0003';

/** ts_headline's passage with its marks turned into offsets (never markup: descriptions are user text). */
function toSnippet(marked: string): DatasetMatch['snippet'] {
  const highlights: Array<[number, number]> = [];
  let snippet = '';
  let start = -1;
  for (const char of marked) {
    if (char === MARK_START) start = snippet.length;
    else if (char === MARK_END && start >= 0) {
      highlights.push([start, snippet.length]);
      start = -1;
    } else snippet += char;
  }
  return highlights.length ? { text: snippet, highlights } : undefined;
}

/**
 * The semantic retrievers' lists for `q` under the listing's filters, and which of their datasets the
 * SQL filter keeps: it has the last word on every candidate too, so nothing invisible gets in.
 */
async function semanticCandidates(
  ctx: DomainContext,
  actor: Actor,
  roles: OrgRoles,
  query: DatasetListQuery,
  q: string,
  filtered: QueryBuilder<Dataset>,
) {
  let semantic: SearchOutcome['semantic'] = 'off';
  const lists = new Map<string, Array<{ datasetId: string; match: SemanticMatch }>>();
  if (query.semantic !== false && (query.state ?? 'active') === 'active' && !ctx.search.embeddings) {
    // No model: the filter (a query of its own when SQL-only filters are set) would serve nothing.
    semantic = 'unavailable';
  } else if (query.semantic !== false && (query.state ?? 'active') === 'active') {
    const filter = await vectorFilter(ctx, actor, roles, query);
    const found = filter ? await semanticLists(ctx.search, q, filter) : { status: 'on' as const, lists: new Map() };
    semantic = found.status;
    for (const [index, list] of found.lists) lists.set(index, list);
  }
  const candidateIds = [...new Set([...lists.values()].flatMap((list) => list.map((entry) => entry.datasetId)))];
  const candidates = candidateIds.length
    ? new Set(
        (
          await filtered
            .clone()
            .select('d.id')
            .andWhere('d.id = any(?::uuid[])', [pgArray(candidateIds)])
            .getResultList()
        ).map((d) => d.id),
      )
    : new Set<string>();
  return { semantic, lists, candidates };
}

export async function searchDatasets(
  ctx: DomainContext,
  actor: Actor,
  roles: OrgRoles,
  query: DatasetListQuery,
  q: string,
  filtered: QueryBuilder<Dataset>,
): Promise<SearchOutcome> {
  const language = ctx.config.search.language;
  // The keyword lookups and the semantic retrieval (the query's embedding, the vector search, the SQL
  // check of its candidates) do not depend on each other: they run side by side.
  const [keyword, retrieved] = await Promise.all([
    keywordSearch(ctx.em, language, q, filtered.clone().select('d.id').getKnexQuery()),
    semanticCandidates(ctx, actor, roles, query, q, filtered),
  ]);
  const { semantic, lists, candidates } = retrieved;

  const reach = query.offset + query.limit;
  const knex = ctx.em.getKnex();
  const candidateIds = pgArray([...candidates]);
  const inResult = (match: SqlFragment) =>
    candidates.size ? { sql: `((${match.sql}) or d.id = any(?::uuid[]))`, params: [...match.params, candidateIds] } : match;
  /**
   * The total, the keyword matches' own total (the typo fallback's test) and, in relevance order, the
   * keyword ranks that can reach this page, from one read of the result set: reading every match is most
   * of a common word's cost, and the count and the shortlist each did (at a million datasets "medicare"
   * has 73k matches: 460 ms side by side on two cores, 300 ms as one statement).
   *
   * The full rank (search document and trigram likeness, ~20 µs a row) is computed for a shortlist: the
   * SEARCH_RANK_SHORTLIST keyword matches (or twice the page's reach) whose titles or names hold the most
   * of the query's stems, so a common word costs about what a rare one does; up to that many matches,
   * every one is ranked. Semantic candidates that match by keywords are ranked beside the shortlist
   * wherever they fall. In the result set a row that is no candidate is a keyword match (`k`): only the
   * candidates' rows test the match again.
   */
  const countAndRanks = async (match: SqlFragment) => {
    // Without candidates every row is a keyword match: it needs no mark, and neither the candidates'
    // rows nor the keyword total are looked for again (at a million "medicare" has 73k rows: ~40 ms).
    const shortlistScore = query.sort_by ? { sql: '0', params: [] } : keyword.shortlist;
    const resultSet = filtered
      .clone()
      .andWhere(inResult(match).sql, inResult(match).params)
      .getKnexQuery()
      .clearSelect()
      .clearOrder()
      .select(
        'd.id',
        knex.raw(`${shortlistScore.sql} as s`, shortlistScore.params as Knex.RawBinding[]),
        ...(candidates.size
          ? [
              knex.raw(`case when d.id = any(?::uuid[]) then (${match.sql}) else true end as k`, [
                candidateIds,
                ...match.params,
              ] as Knex.RawBinding[]),
            ]
          : []),
      );
    const shortlisted = `select m.id from m${candidates.size ? ' where m.k' : ''} order by m.s desc, m.id limit ?`;
    const shortlistSize = Math.max(ctx.config.search.rankShortlist, 2 * reach);
    const rankOrder = `${keyword.rank.sql} desc, d.id`;
    // The ranks as [id, position] pairs: the first `reach` of the shortlist and candidates by rank, and
    // every candidate that matches by keywords wherever it falls.
    const ranked = candidates.size
      ? {
          sql: `(select coalesce(json_agg(json_build_array(r.id, r.n)), '[]') from (
             select d.id, row_number() over (order by ${rankOrder}) as n from datasets d
              where d.id in ((${shortlisted}) union all (select m.id from m where m.k and m.id = any(?::uuid[])))) r
            where r.n <= ? or r.id = any(?::uuid[]))`,
          params: [...keyword.rank.params, shortlistSize, candidateIds, reach, candidateIds],
        }
      : {
          sql: `(select coalesce(json_agg(json_build_array(p.id, p.n)), '[]') from unnest(array(
             select d.id from datasets d where d.id in (${shortlisted}) order by ${rankOrder} limit ?)) with ordinality as p(id, n))`,
          params: [shortlistSize, ...keyword.rank.params, reach],
        };
    const { rows } = await knex.raw(
      `with m as materialized (?)
       select (select count(*) from m)::int as total${candidates.size ? ', (select count(*) from m where m.k)::int as keyword_total' : ''},
              ${query.sort_by ? 'null' : ranked.sql} as ranks`,
      [resultSet, ...((query.sort_by ? [] : ranked.params) as Knex.RawBinding[])],
    );
    const row = rows[0] as { total: number; keyword_total?: number; ranks: Array<[string, number]> | null };
    return { total: row.total, keywordTotal: row.keyword_total ?? row.total, ranks: row.ranks ? new Map(row.ranks) : undefined };
  };

  // Full text (metadata, or the text of a file) first; the typo fallback only when that finds nothing
  // by keywords (semantic candidates alone do not keep it away).
  let match = keyword.strict;
  const strict = await countAndRanks(match);
  let { total, ranks } = strict;
  if (keyword.fuzzy && strict.keywordTotal === 0) {
    match = keyword.fuzzy;
    ({ total, ranks } = await countAndRanks(match));
  }
  const matched = filtered.clone().andWhere(inResult(match).sql, inResult(match).params);

  const semanticFor = new Map<string, DatasetMatch['semantic']>();
  for (const list of lists.values()) {
    for (const { datasetId, match: m } of list) {
      if (!candidates.has(datasetId)) continue;
      const entry = {
        index: m.index,
        score: Math.round(m.score * 1000) / 1000,
        ...(m.resourceId ? { resourceId: m.resourceId } : {}),
        text: m.text.slice(0, 240),
      };
      semanticFor.set(datasetId, [...(semanticFor.get(datasetId) ?? []), entry]);
    }
  }

  const pageIds = ranks
    ? fuse([
        ranks,
        ...[...lists.values()].map((list) => new Map(list.filter((e) => candidates.has(e.datasetId)).map((e, i) => [e.datasetId, i + 1]))),
      ])
        .slice(query.offset, reach)
        .map((entry) => entry.id)
    : undefined;

  const explain = async (ids: string[]) => {
    const rows: Array<{ id: string; keyword: boolean; marked: string }> =
      ids.length === 0
        ? []
        : (
            await knex.raw(
              `select d.id, (${match.sql}) as keyword,
              ts_headline(?::regconfig, coalesce(d.notes, ''), websearch_to_tsquery(?::regconfig, unaccent(?)),
                'StartSel=${MARK_START}, StopSel=${MARK_END}, MaxWords=30, MinWords=12, MaxFragments=1') as marked
         from datasets d where d.id = any(?::uuid[])`,
              [...match.params, language, language, q, pgArray(ids)] as Knex.RawBinding[],
            )
          ).rows;
    return new Map(
      rows.map((row) => {
        const snippet = toSnippet(row.marked ?? '');
        return [row.id, { keyword: row.keyword, ...(snippet ? { snippet } : {}), semantic: semanticFor.get(row.id) ?? [] }];
      }),
    );
  };
  return { matched, total, pageIds, semantic, explain };
}
