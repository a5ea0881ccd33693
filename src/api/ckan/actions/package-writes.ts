import type { Action } from './action.ts';

/** CKAN's write actions on datasets and their resources (package_*, resource_*). */
export const packageWriteActions: Record<string, Action> = {};
