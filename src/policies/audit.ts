import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * CKAN's habit: an action that finished without asking any authorization rule is a bug waiting to
 * leak. Every rule of this folder records that it was asked; `auditPolicies` runs an action and says
 * whether one was. Every entry point runs its actions under it through the audited runner
 * (audited-runner.ts) when self-checks are on (ALMANAC_SELF_CHECK, which the test suite sets), so the
 * whole suite is the audit.
 */
const asked = new AsyncLocalStorage<{ count: number }>();

/** Called by every rule and visibility filter. Outside an audit it costs one lookup. */
export function recordPolicyConsulted(): void {
  const store = asked.getStore();
  if (store) store.count++;
}

export async function auditPolicies<T>(action: () => Promise<T>): Promise<{ result: T; consulted: boolean }> {
  const store = { count: 0 };
  const result = await asked.run(store, action);
  return { result, consulted: store.count > 0 };
}

export class PolicyNotConsulted extends Error {}
