import { requestDataDeletion } from '../../../../domain/admin/data-deletion.ts';
import { defineRoute } from '../../../../http/route.ts';
import { Accepted } from '../../../../http/schemas.ts';

export const adminDataRoutes = [
  defineRoute({
    method: 'delete',
    path: '/admin/data',
    problems: ['jobs_unavailable'],
    tag: 'admin',
    access: 'sysadmin',
    status: 202,
    summary: 'Delete all datasets, organizations, categories and tags, keeping users; runs as the workflow delete-all-data',
    response: Accepted,
    handle: ({ domain, actor }) => requestDataDeletion(domain, actor),
  }),
];
