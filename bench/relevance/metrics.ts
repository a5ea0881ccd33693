/**
 * Ranking metrics over graded judgments (name → 1 or 2; anything else is 0). Pure, so the unit test can
 * pin them to hand-computed values.
 */

export type Judgments = Record<string, number>;

const gain = (grade: number) => 2 ** grade - 1;
/** Rank 1 is undiscounted: log2(1 + 1) = 1. */
const discount = (rank: number) => Math.log2(rank + 1);

function dcg(grades: number[], k: number): number {
  return grades.slice(0, k).reduce((sum, grade, i) => sum + gain(grade) / discount(i + 1), 0);
}

/**
 * nDCG@k: DCG of the ranking (gains 2^rel − 1, log2 discount) over the DCG of the ideal ranking, built
 * from the judgments rather than from what came back, so a relevant dataset that was never retrieved
 * still lowers the score. A name repeated in the ranking counts once, at its first rank.
 */
export function ndcgAtK(ranked: string[], judgments: Judgments, k = 10): number {
  const ideal = dcg(
    Object.values(judgments)
      .filter((g) => g > 0)
      .sort((a, b) => b - a),
    k,
  );
  if (ideal === 0) return 0;
  const seen = new Set<string>();
  const grades = ranked.map((name) => {
    if (seen.has(name)) return 0;
    seen.add(name);
    return judgments[name] ?? 0;
  });
  return dcg(grades, k) / ideal;
}

/**
 * recall@k: the share of relevant datasets (any grade) found in the top k. The denominator is all of them
 * even when there are more than k, as the query file keeps at most 10 per query.
 */
export function recallAtK(ranked: string[], judgments: Judgments, k = 10): number {
  const relevant = Object.keys(judgments).filter((name) => (judgments[name] ?? 0) > 0);
  if (relevant.length === 0) return 0;
  const top = new Set(ranked.slice(0, k));
  return relevant.filter((name) => top.has(name)).length / relevant.length;
}

export const mean = (xs: number[]) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : 0);
