import { groupFamilyRoutes } from '../shared/group-family.ts';

/** Categories; the spec calls them groups in paths. */
export const categoryRoutes = groupFamilyRoutes('category', '/groups', 'groups');
