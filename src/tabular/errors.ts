/**
 * Why a resource could not be previewed, phrased for the person who uploaded it. The pipeline stores
 * `message` as the failed step's error, so it must stay short, never carry a local path or a stack, and
 * `code` lets callers branch without parsing prose.
 */
export type TabularErrorCode = 'empty_file' | 'not_tabular' | 'not_text' | 'row_too_large' | 'unreadable' | 'timeout';

export class TabularError extends Error {
  override readonly name = 'TabularError';

  constructor(
    readonly code: TabularErrorCode,
    message: string,
  ) {
    super(message);
  }
}
