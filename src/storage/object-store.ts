/**
 * Where uploaded files and previews live. Put/get arrive with uploads (issue 3); for now a store is
 * made ready at start and answers the health check.
 */
export interface ObjectStore {
  ensureReady(): Promise<void>;
  isHealthy(): Promise<boolean>;
}
