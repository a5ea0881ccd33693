/** The list envelope of DESIGN §4, shared by every list endpoint and MCP tool. */
export interface Page<T> {
  count: number;
  offset: number;
  limit: number;
  results: T[];
}

export interface PageRequest {
  offset: number;
  limit: number;
}

export const page = <T>(results: T[], count: number, req: PageRequest): Page<T> => ({
  count,
  offset: req.offset,
  limit: req.limit,
  results,
});
