let counter = 0;

/**
 * A name no other call in this test file gets (`prefix-1`, `prefix-2`, …): tests in a file run
 * concurrently on one database, so every name they create carries its own counter.
 */
export const unique = (prefix: string) => `${prefix}-${++counter}`;
