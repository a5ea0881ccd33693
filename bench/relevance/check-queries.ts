/**
 * `npx tsx bench/relevance/check-queries.ts`: validates queries.json against the catalog. Every judged name
 * must exist; a paraphrase or synonym query must share no stemmed content word with the title and tags of
 * the datasets it should find, or it would measure keyword matching rather than meaning; an exact query's
 * words must all be in the title of a dataset it grades 2. Prints each offence; exits 1 when there is one.
 */
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { readCatalog } from '../catalog-seed.ts';
import { contentStems } from './stem.ts';
import { loadQueries, QUERY_KINDS, type JudgedQuery } from './queries.ts';

export const MINIMUM = { total: 48, paraphraseOrSynonym: 16, exact: 12, topic: 12 };

interface CatalogEntry {
  name: string;
  title: string;
  tags?: string[];
}

export function checkQueries(queries: JudgedQuery[], catalog: CatalogEntry[]): string[] {
  const byName = new Map(catalog.map((r) => [r.name, r]));
  const problems: string[] = [];
  const seen = new Set<string>();
  for (const query of queries) {
    const where = `"${query.q}" (${query.kind})`;
    if (seen.has(query.q.toLowerCase())) problems.push(`${where}: asked twice`);
    seen.add(query.q.toLowerCase());
    if (!QUERY_KINDS.includes(query.kind)) problems.push(`${where}: unknown kind`);
    const judged = Object.entries(query.relevant ?? {});
    if (judged.length < 1 || judged.length > 10) problems.push(`${where}: ${judged.length} relevant datasets, expected 1 to 10`);
    if (!judged.some(([, grade]) => grade === 2)) problems.push(`${where}: no dataset graded 2`);
    const queryStems = contentStems(query.q);
    for (const [name, grade] of judged) {
      if (grade !== 1 && grade !== 2) problems.push(`${where}: ${name} has grade ${grade}, expected 1 or 2`);
      const record = byName.get(name);
      if (!record) {
        problems.push(`${where}: no dataset named ${name}`);
        continue;
      }
      if (query.kind === 'paraphrase' || query.kind === 'synonym') {
        const shared = [...contentStems(`${record.title} ${(record.tags ?? []).join(' ')}`)].filter((s) => queryStems.has(s));
        if (shared.length) problems.push(`${where}: shares ${shared.join(', ')} with ${name} ("${record.title}")`);
      }
    }
    if (query.kind === 'exact') {
      const titles = judged.filter(([, grade]) => grade === 2).map(([name]) => byName.get(name)?.title ?? '');
      if (!titles.some((title) => [...queryStems].every((s) => contentStems(title).has(s)))) {
        problems.push(`${where}: not part of the title of any dataset graded 2`);
      }
    }
  }
  const count = (kinds: string[]) => queries.filter((q) => kinds.includes(q.kind)).length;
  if (queries.length < MINIMUM.total) problems.push(`${queries.length} queries, expected at least ${MINIMUM.total}`);
  if (count(['paraphrase', 'synonym']) < MINIMUM.paraphraseOrSynonym) problems.push(`too few paraphrase/synonym queries`);
  if (count(['exact']) < MINIMUM.exact) problems.push(`too few exact queries`);
  if (count(['topic']) < MINIMUM.topic) problems.push(`too few topic queries`);
  return problems;
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  const queries = loadQueries();
  const problems = checkQueries(queries, readCatalog());
  const perKind = Object.fromEntries(QUERY_KINDS.map((k) => [k, queries.filter((q) => q.kind === k).length]));
  for (const p of problems) console.log(p);
  console.log(`${queries.length} queries ${JSON.stringify(perKind)}: ${problems.length ? `${problems.length} problems` : 'clean'}`);
  process.exit(problems.length ? 1 : 0);
}
