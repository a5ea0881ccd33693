import { isUuid } from '../ids.ts';

/**
 * Every background job's deterministic workflow id, and the job types of GET /admin/jobs: one pure module
 * that the gateway (src/temporal), the workflows (which start pipelines themselves) and the domain share,
 * so that a repeat joins or re-runs the same work instead of duplicating it.
 */
export const purgeOrgWorkflowId = (orgId: string) => `purge-org-${orgId}`;
export const deleteDraftWorkflowId = (datasetId: string) => `delete-draft-${datasetId}`;
export const purgeDatasetWorkflowId = (datasetId: string) => `purge-dataset-${datasetId}`;
export const publishSyncWorkflowId = (datasetId: string) => `publish-sync-${datasetId}`;
export const pipelineWorkflowId = (resourceId: string) => `pipeline-${resourceId}`;
/** A harvest source's run; its schedule starts `harvest-<id>-<time>` (Temporal appends the time). */
export const harvestWorkflowId = (sourceId: string) => `harvest-${sourceId}`;
/** The Temporal Schedule of a harvest source with a `schedule`. */
export const harvestScheduleId = (sourceId: string) => `harvest-schedule-${sourceId}`;
/**
 * The vector backlog's job: one per deployment, and a deployment is its task queue (several share a
 * Temporal namespace in the tests), as the signal that starts or joins it must reach this deployment's
 * worker, which embeds this deployment's points.
 */
export const vectorBacklogWorkflowId = (taskQueue: string) => `vector-backlog-${taskQueue}`;
export const DELETE_ALL_DATA_WORKFLOW_ID = 'delete-all-data';
export const ENQUEUE_ALL_WORKFLOW_ID = 'enqueue-all';
export const LINK_CHECK_WORKFLOW_ID = 'link-check';
export const REINDEX_WORKFLOW_ID = 'reindex-metadata';
export const SWEEP_STORAGE_WORKFLOW_ID = 'sweep-storage';

/** The job types of GET /admin/jobs?type=, named like their workflow ids, and their workflow types. */
export const JOB_TYPES = {
  pipeline: 'pipelineWorkflow',
  'publish-sync': 'publishSyncWorkflow',
  'purge-org': 'purgeOrganizationWorkflow',
  'purge-dataset': 'purgeDatasetWorkflow',
  'delete-draft': 'deleteDraftWorkflow',
  'delete-all-data': 'deleteAllDataWorkflow',
  'enqueue-all': 'enqueueAllWorkflow',
  'link-check': 'linkCheckWorkflow',
  'reindex-metadata': 'reindexMetadataWorkflow',
  'sweep-storage': 'sweepStorageWorkflow',
  harvest: 'harvestWorkflow',
  'vector-backlog': 'vectorBacklogWorkflow',
} as const;
export type JobType = keyof typeof JOB_TYPES;
export const JOB_TYPE_NAMES = Object.keys(JOB_TYPES) as [JobType, ...JobType[]];
const TYPE_OF_WORKFLOW: Record<string, JobType> = Object.fromEntries(Object.entries(JOB_TYPES).map(([k, v]) => [v, k as JobType]));

/** GET /admin/jobs?status= values. */
export const JOB_STATUS_NAMES = ['running', 'completed', 'failed', 'canceled', 'terminated', 'timed_out', 'continued_as_new'] as const;
export type JobStatus = (typeof JOB_STATUS_NAMES)[number];

/** A workflow type's job type name; a type this list does not know keeps its own name. */
export const jobTypeOf = (workflowType: string): string => TYPE_OF_WORKFLOW[workflowType] ?? workflowType;

/** Which record a job works on, read back from its deterministic workflow id. */
const SUBJECTS: Record<string, { prefix: string; field: 'resourceId' | 'packageId' | 'organizationId' }> = {
  pipelineWorkflow: { prefix: pipelineWorkflowId(''), field: 'resourceId' },
  publishSyncWorkflow: { prefix: publishSyncWorkflowId(''), field: 'packageId' },
  deleteDraftWorkflow: { prefix: deleteDraftWorkflowId(''), field: 'packageId' },
  purgeDatasetWorkflow: { prefix: purgeDatasetWorkflowId(''), field: 'packageId' },
  purgeOrganizationWorkflow: { prefix: purgeOrgWorkflowId(''), field: 'organizationId' },
};

export type JobSubject = { resourceId?: string; packageId?: string; organizationId?: string };

/** `pipeline-<uuid>` of a pipelineWorkflow → `{resourceId: <uuid>}`, and so on; nothing for other ids. */
export function jobSubject(workflowType: string, workflowId: string): JobSubject {
  const subject = SUBJECTS[workflowType];
  if (!subject || !workflowId.startsWith(subject.prefix)) return {};
  const id = workflowId.slice(subject.prefix.length);
  return isUuid(id) ? { [subject.field]: id } : {};
}
