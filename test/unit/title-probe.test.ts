import test from 'ava';
import { titleProbe } from '../../src/search/keyword-query.ts';

test('a stem that is the start of its word is looked for as it is', (t) => {
  t.is(titleProbe('medicar', 'medicare'), 'medicar');
  t.is(titleProbe('effici', 'efficiency'), 'effici');
  t.is(titleProbe('hospit', 'hospital'), 'hospit');
});

test('a stem whose end stemming rewrote is looked for by the start it shares with the word', (t) => {
  t.is(titleProbe('qualiti', 'quality'), 'qualit');
  t.is(titleProbe('energi', 'energy'), 'energ');
  t.is(titleProbe('happi', 'happy'), 'happ');
});

test('a stem of a part of the word, or one sharing too little with it, stays itself', (t) => {
  t.is(titleProbe('19', 'covid-19'), '19');
  t.is(titleProbe('covid-19', 'covid-19'), 'covid-19');
  t.is(titleProbe('go', 'went'), 'go');
  t.is(titleProbe('abcdefg', 'abxyz'), 'abcdefg');
});
