import test from 'ava';
import { DistinctVectors } from '../../src/search/vectors/distinct-vectors.ts';

/** Slots with their vectors, as a point store holds them. */
function store(vectors: Record<number, number[]>) {
  const stored = new Map(Object.entries(vectors).map(([slot, v]) => [Number(slot), Float32Array.from(v)]));
  return { stored, nodes: new DistinctVectors((slot) => stored.get(slot)!) };
}

test('points with one vector share a node; the graph hears of a node once, when it is made and when it goes', (t) => {
  const { nodes } = store({ 0: [1, 0], 1: [1, 0], 2: [0, 1] });
  [0, 1, 2].forEach((slot) => nodes.link(slot));
  t.is(nodes.size, 2);
  const first = nodes.takeChanges();
  t.is(first.added.length, 2);
  t.deepEqual(first.dropped, []);
  const shared = first.added.find((node) => [...nodes.slotsOf(node)].length === 2)!;
  t.deepEqual([...nodes.slotsOf(shared)].sort(), [0, 1]);

  nodes.unlink(0);
  t.deepEqual(nodes.takeChanges(), { dropped: [], added: [] }, 'a node that keeps a point stays');
  nodes.unlink(1);
  t.deepEqual(nodes.takeChanges(), { dropped: [shared], added: [] });
  t.false(nodes.has(1));
  t.is(nodes.size, 1);
});

test('a node id freed and made again in one round is dropped, then added: the graph drops its old vector first', (t) => {
  const { stored, nodes } = store({ 0: [1, 0] });
  nodes.link(0);
  const [node] = nodes.takeChanges().added;
  nodes.unlink(0);
  stored.set(0, Float32Array.from([0, 1]));
  nodes.link(0);
  t.deepEqual(nodes.takeChanges(), { dropped: [node], added: [node] });
  t.deepEqual(nodes.takeChanges({ all: true }), { dropped: [], added: [node] }, 'all: every node, for a graph built anew');
});
