import type { Action } from './action.ts';

/** CKAN's write actions on organizations and groups and their members, with user_show and organization_list_for_user. */
export const organizationWriteActions: Record<string, Action> = {};
