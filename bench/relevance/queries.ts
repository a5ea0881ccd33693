/** The judged queries of the relevance evaluation (queries.json beside this file). */
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';

export const QUERY_KINDS = ['paraphrase', 'synonym', 'exact', 'topic'] as const;
export type QueryKind = (typeof QUERY_KINDS)[number];

/** 2 = highly relevant, 1 = relevant; a dataset not named is not relevant. */
export type Grade = 1 | 2;

export interface JudgedQuery {
  q: string;
  kind: QueryKind;
  /** dataset name → grade */
  relevant: Record<string, Grade>;
}

export const QUERIES_FILE = fileURLToPath(new URL('./queries.json', import.meta.url));

export function loadQueries(file = QUERIES_FILE): JudgedQuery[] {
  return JSON.parse(fs.readFileSync(file, 'utf8'));
}
