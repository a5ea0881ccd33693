import { groupFamilyRoutes } from '../shared/group-family.ts';

export const organizationRoutes = groupFamilyRoutes('organization', '/organizations', 'organizations');
