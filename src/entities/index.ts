export { User } from './user.ts';
export { Session } from './session.ts';
export { ApiToken } from './api-token.ts';
export { Group, GROUP_KINDS, type GroupKind } from './group.ts';
export { Membership, MEMBER_ROLES, type MemberRole } from './membership.ts';
export { Tag } from './tag.ts';
export { LoginThrottle } from './login-throttle.ts';
export { Dataset, DATASET_STATES, type DatasetState } from './dataset.ts';
export { Resource, URL_TYPES, type UrlType } from './resource.ts';
export { LinkCheck, LINK_CHECK_STATUSES, type LinkCheckStatus } from './link-check.ts';
export { Embedding } from './embedding.ts';
export { SearchPoint, SEARCH_INDEXES } from './search-point.ts';
export { HarvestSource, HARVEST_SOURCE_TYPES, type HarvestSourceType } from './harvest-source.ts';
export {
  HarvestRun,
  HarvestRunPage,
  HarvestRunRecord,
  HARVEST_RUN_STATUSES,
  HARVEST_OUTCOMES,
  type HarvestRunStatus,
  type HarvestOutcome,
} from './harvest-run.ts';
export { MetadataProfile } from './metadata-profile.ts';
export { Activity, ACTIVITY_OBJECT_TYPES, type ActivityObjectType } from './activity.ts';
export { ResourceVersion } from './resource-version.ts';
export { VectorIndexPending } from './vector-index-pending.ts';
export { DatasetFacetKeys, FacetCount, FacetCountChange, FacetValue } from './facet-count.ts';

import { ApiToken } from './api-token.ts';
import { Dataset } from './dataset.ts';
import { Resource } from './resource.ts';
import { LinkCheck } from './link-check.ts';
import { Embedding } from './embedding.ts';
import { SearchPoint } from './search-point.ts';
import { HarvestRun, HarvestRunPage, HarvestRunRecord } from './harvest-run.ts';
import { HarvestSource } from './harvest-source.ts';
import { MetadataProfile } from './metadata-profile.ts';
import { Activity } from './activity.ts';
import { ResourceVersion } from './resource-version.ts';
import { VectorIndexPending } from './vector-index-pending.ts';
import { DatasetFacetKeys, FacetCount, FacetCountChange, FacetValue } from './facet-count.ts';
import { Group } from './group.ts';
import { LoginThrottle } from './login-throttle.ts';
import { Membership } from './membership.ts';
import { Session } from './session.ts';
import { Tag } from './tag.ts';
import { User } from './user.ts';

export const allEntities = [
  User,
  Session,
  ApiToken,
  Group,
  Membership,
  Tag,
  LoginThrottle,
  Dataset,
  Resource,
  LinkCheck,
  Embedding,
  SearchPoint,
  HarvestSource,
  HarvestRun,
  HarvestRunRecord,
  HarvestRunPage,
  MetadataProfile,
  Activity,
  ResourceVersion,
  VectorIndexPending,
  DatasetFacetKeys,
  FacetCount,
  FacetCountChange,
  FacetValue,
];
