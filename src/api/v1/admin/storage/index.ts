import { z } from 'zod';
import { storageOrphans } from '../../../../domain/admin/storage-orphans.ts';
import { defineRoute } from '../../../../http/route.ts';

const OrphanRecord = z
  .object({
    key: z.string().describe('The object key, or query-cache/<file> for a query copy of a preview on this server'),
    size: z.number().int(),
    lastModified: z.iso.datetime(),
    reason: z.string().describe('Why no record serves it'),
    removed: z.boolean(),
  })
  .meta({ id: 'StorageOrphan' });

const OrphanReport = z
  .object({
    scanned: z.number().int().describe('Objects and query copies looked at'),
    orphanCount: z.number().int(),
    orphanBytes: z.number().int(),
    removedCount: z.number().int(),
    orphans: z.array(OrphanRecord).describe('The first 1000 orphans found'),
  })
  .meta({ id: 'StorageOrphanReport' });

export const adminStorageRoutes = [
  defineRoute({
    method: 'get',
    path: '/admin/storage/orphans',
    tag: 'admin',
    access: 'sysadmin',
    summary:
      'Stored objects that no record serves (files of deleted resources, uploads never completed, replaced previews); nothing is removed',
    response: OrphanReport,
    handle: ({ domain, actor }) => storageOrphans(domain, actor, { remove: false, olderThanSeconds: 0 }),
  }),
  defineRoute({
    method: 'delete',
    path: '/admin/storage/orphans',
    tag: 'admin',
    access: 'sysadmin',
    summary:
      'Remove the orphans last modified more than olderThanSeconds ago (default one hour: younger ones may belong to a write in progress)',
    query: z.object({ olderThanSeconds: z.coerce.number().int().min(0).max(31_536_000).default(3600) }),
    response: OrphanReport,
    handle: ({ domain, actor, query }) => storageOrphans(domain, actor, { remove: true, olderThanSeconds: query.olderThanSeconds }),
  }),
];
