export { purgeOrganizationWorkflow } from './purge-organization.ts';
export { deleteDraftWorkflow } from './delete-draft.ts';
