/** A user's text as an ILIKE "contains" pattern, its `%`, `_` and `\\` escaped so that each matches itself. */
export const likePattern = (q: string) => `%${q.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
