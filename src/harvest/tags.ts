/**
 * A source's keywords as Almanac tags: each trimmed, inner whitespace collapsed to one space, empties
 * dropped, and duplicates that differ only by case kept once (the first spelling wins). Lengths are left
 * alone: the domain holds records to its limits and reports the ones over them.
 */
export function cleanTags(values: Iterable<unknown>): string[] {
  const seen = new Set<string>();
  const tags: string[] = [];
  for (const value of values) {
    if (typeof value !== 'string') continue;
    const tag = value.replace(/\s+/g, ' ').trim();
    const key = tag.toLowerCase();
    if (!tag || seen.has(key)) continue;
    seen.add(key);
    tags.push(tag);
  }
  return tags;
}
