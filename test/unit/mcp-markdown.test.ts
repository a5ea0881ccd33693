import test from 'ava';
import { cell, markdownTable, sqlColumn } from '../../src/mcp/markdown.ts';

test('cells escape pipes and backslashes, turn line breaks into <br>, show null as empty and objects as JSON', (t) => {
  t.is(cell('a|b'), 'a\\|b');
  t.is(cell('back\\slash'), 'back\\\\slash');
  t.is(cell('one\ntwo\r\nthree\rfour'), 'one<br>two<br>three<br>four');
  t.is(cell(null), '');
  t.is(cell(undefined), '');
  t.is(cell(0), '0');
  t.is(cell(false), 'false');
  t.is(cell({ a: [1, 'x|y'] }), '{"a":[1,"x\\|y"]}');
});

test('a table has a header, a rule and one line per row, in column order', (t) => {
  t.is(
    markdownTable(
      ['b', 'a|z'],
      [
        { 'a|z': 1, b: 'x' },
        { b: null, 'a|z': 'two\nlines' },
      ],
    ),
    ['| b | a\\|z |', '| --- | --- |', '| x | 1 |', '|  | two<br>lines |'].join('\n'),
  );
  t.is(markdownTable(['n'], []), '| n |\n| --- |');
  t.is(markdownTable([], []), '(no columns)');
});

test('column names are quoted for SQL when they are not plain lower-case identifiers, or are reserved words', (t) => {
  t.is(sqlColumn('city'), 'city');
  t.is(sqlColumn('avg_temp2'), 'avg_temp2');
  t.is(sqlColumn('avg temp'), '"avg temp"');
  t.is(sqlColumn('Année'), '"Année"');
  t.is(sqlColumn('City'), '"City"');
  t.is(sqlColumn('2024'), '"2024"');
  t.is(sqlColumn('order'), '"order"');
  t.is(sqlColumn('say "hi"'), '"say ""hi"""');
});
