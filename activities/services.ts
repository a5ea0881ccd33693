import type { DomainServices } from '../src/domain/context.ts';

/**
 * What the worker hands every activity factory: the process's services (src/runtime/services.ts).
 * Tests build activities from fewer: without `jobs`, a harvest page fails saying it is missing (its
 * search sync starts follow-up jobs); every other activity runs.
 */
export type ActivityServices = Pick<DomainServices, 'orm' | 'storage' | 'config' | 'search'> &
  Partial<Pick<DomainServices, 'jobs' | 'log'>>;
