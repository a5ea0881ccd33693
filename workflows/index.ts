export { purgeOrganizationWorkflow } from './purge-organization.ts';
