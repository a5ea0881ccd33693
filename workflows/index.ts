export { purgeOrganizationWorkflow } from './purge-organization.ts';
export { deleteDraftWorkflow } from './delete-draft.ts';
export { purgeDatasetWorkflow } from './purge-dataset.ts';
export { publishSyncWorkflow } from './publish-sync.ts';
export { deleteAllDataWorkflow } from './delete-all-data.ts';
export { pipelineWorkflow } from './pipeline.ts';
export { enqueueAllWorkflow } from './enqueue-all.ts';
export { linkCheckWorkflow } from './link-check.ts';
