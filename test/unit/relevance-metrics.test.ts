import test from 'ava';
import { ndcgAtK, recallAtK } from '../../bench/relevance/metrics.ts';

const close = (actual: number, expected: number) => Math.abs(actual - expected) < 1e-9;

test('the ideal order scores nDCG 1 and recall 1', (t) => {
  const judged = { a: 2, b: 1, c: 1 };
  t.is(ndcgAtK(['a', 'b', 'c', 'x'], judged), 1);
  t.is(recallAtK(['a', 'b', 'c', 'x'], judged), 1);
});

test('swapping a 2 and a 1 costs what the log2 discount says', (t) => {
  // DCG = (2^1−1)/log2 2 + (2^2−1)/log2 3 = 1 + 3/1.585 = 2.8928; ideal = 3 + 1/1.585 = 3.6309.
  t.true(close(ndcgAtK(['b', 'a'], { a: 2, b: 1 }), (1 + 3 / Math.log2(3)) / (3 + 1 / Math.log2(3))));
  t.true(close(ndcgAtK(['b', 'a'], { a: 2, b: 1 }), 0.7967075809905066));
});

test('a single relevant dataset at rank 2 scores 1/log2 3', (t) => {
  t.true(close(ndcgAtK(['x', 'a'], { a: 2 }), 0.6309297535714574));
  t.true(close(ndcgAtK(['x', 'a'], { a: 1 }), 0.6309297535714574));
});

test('the ideal comes from the judgments, so a relevant dataset never retrieved lowers the score', (t) => {
  // Ranking c, x, a over {a: 2, b: 2, c: 1}: DCG = 1/1 + 0 + 3/2 = 2.5; ideal = 3 + 3/log2 3 + 1/2 = 5.3928.
  t.true(close(ndcgAtK(['c', 'x', 'a'], { a: 2, b: 2, c: 1 }), 2.5 / (3.5 + 3 / Math.log2(3))));
  t.true(close(recallAtK(['c', 'x', 'a'], { a: 2, b: 2, c: 1 }), 2 / 3));
});

test('nothing relevant in the top k scores 0', (t) => {
  const ranked = [...Array.from({ length: 10 }, (_, i) => `x${i}`), 'a'];
  t.is(ndcgAtK(ranked, { a: 2 }), 0);
  t.is(recallAtK(ranked, { a: 2 }), 0);
  t.is(ndcgAtK([], { a: 2 }), 0);
  t.is(recallAtK([], { a: 2 }), 0);
});

test('k cuts both the ranking and the ideal', (t) => {
  const judged = Object.fromEntries(Array.from({ length: 12 }, (_, i) => [`r${i}`, 1]));
  const ranked = Object.keys(judged);
  t.is(ndcgAtK(ranked, judged, 10), 1);
  t.true(close(recallAtK(ranked, judged, 10), 10 / 12));
  t.true(close(recallAtK(['a', 'x', 'c'], { a: 2, b: 1, c: 1 }, 2), 1 / 3));
});

test('a name repeated in the ranking counts once', (t) => {
  t.true(close(ndcgAtK(['a', 'a'], { a: 2, b: 2 }), 3 / (3 + 3 / Math.log2(3))));
});

test('grade 0 or unjudged names add nothing, and empty judgments score 0', (t) => {
  t.is(ndcgAtK(['x', 'y'], { x: 0 }), 0);
  t.is(recallAtK(['x'], {}), 0);
});
