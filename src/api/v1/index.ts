import type { Route } from '../../http/route.ts';
import { activityRoutes } from './activity/index.ts';
import { adminDataRoutes } from './admin/data/index.ts';
import { adminHarvestSourceRoutes } from './admin/harvest-sources/index.ts';
import { adminHealthRoutes } from './admin/health/index.ts';
import { adminJobRoutes } from './admin/jobs/index.ts';
import { adminProfileRoutes } from './admin/profiles/index.ts';
import { adminSearchRoutes } from './admin/search/index.ts';
import { adminStorageRoutes } from './admin/storage/index.ts';
import { adminUserRoutes } from './admin/users/index.ts';
import { authRoutes } from './auth/index.ts';
import { categoryRoutes } from './groups/index.ts';
import { organizationRoutes } from './organizations/index.ts';
import { packageRoutes } from './packages/index.ts';
import { profileRoutes } from './profiles/index.ts';
import { resourceRoutes } from './resources/index.ts';
import { resourceVersionRoutes } from './resources/versions.ts';
import { siteRoutes } from './site/index.ts';
import { storageRoutes } from './storage/index.ts';
import { tagRoutes } from './tags/index.ts';
import { tokenRoutes } from './tokens/index.ts';
import { userRoutes } from './users/index.ts';

/** Every /api/v1 route; the OpenAPI document is generated from this same list. */
export const v1Routes: Route[] = [
  ...authRoutes,
  ...packageRoutes,
  ...activityRoutes,
  ...resourceRoutes,
  ...resourceVersionRoutes,
  ...storageRoutes,
  ...userRoutes,
  ...tokenRoutes,
  ...organizationRoutes,
  ...categoryRoutes,
  ...tagRoutes,
  ...siteRoutes,
  ...profileRoutes,
  ...adminUserRoutes,
  ...adminDataRoutes,
  ...adminJobRoutes,
  ...adminSearchRoutes,
  ...adminHealthRoutes,
  ...adminStorageRoutes,
  ...adminHarvestSourceRoutes,
  ...adminProfileRoutes,
];
