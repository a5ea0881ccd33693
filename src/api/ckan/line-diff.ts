/**
 * A line diff of two texts in the unified form (`--- a`, `+++ b`, then ` `, `-`, `+` lines), as CKAN's
 * activity_diff gives with difflib: the longest common subsequence of lines, every line shown (records are
 * a few hundred lines at most, so the quadratic table is small).
 */
export function unifiedDiff(before: string, after: string, names: [string, string]): string {
  const a = before.split('\n');
  const b = after.split('\n');
  const common: number[][] = Array.from({ length: a.length + 1 }, () => new Array<number>(b.length + 1).fill(0));
  for (let i = a.length - 1; i >= 0; i--) {
    for (let j = b.length - 1; j >= 0; j--) {
      common[i]![j] = a[i] === b[j] ? common[i + 1]![j + 1]! + 1 : Math.max(common[i + 1]![j]!, common[i]![j + 1]!);
    }
  }
  const lines = [`--- ${names[0]}`, `+++ ${names[1]}`];
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    if (i < a.length && j < b.length && a[i] === b[j]) {
      lines.push(` ${a[i++]}`);
      j++;
    } else if (j < b.length && (i === a.length || common[i]![j + 1]! >= common[i + 1]![j]!)) {
      lines.push(`+${b[j++]}`);
    } else {
      lines.push(`-${a[i++]}`);
    }
  }
  return lines.join('\n');
}
