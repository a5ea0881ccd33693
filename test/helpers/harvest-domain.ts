import { randomUUID } from 'node:crypto';
import type { DomainContext } from '../../src/domain/context.ts';
import { Group, HarvestRun, HarvestSource, type HarvestSourceType } from '../../src/entities/index.ts';
import type { HarvestRecord, HarvestResource } from '../../src/domain/harvest/record.ts';
import type { TestApp } from './app.ts';

/**
 * For tests of src/domain/harvest that apply items the way the harvest workflow's activities do: a
 * domain context on the running app's services, and harvest sources and runs made directly in its
 * database (the admin API that makes them is tested on its own).
 */
export function domainContext(app: TestApp): DomainContext {
  const { orm, config, log, jobs, storage, search } = app.almanac.services;
  return { em: orm.em.fork(), config, log, jobs, storage, search };
}

export async function makeSource(
  app: TestApp,
  opts: { name: string; type?: HarvestSourceType; organization?: string | null; deleteRemoved?: boolean },
): Promise<HarvestSource> {
  const em = app.almanac.services.orm.em.fork();
  const org = opts.organization ? await em.findOneOrFail(Group, { kind: 'organization', name: opts.organization }) : null;
  const source = em.create(HarvestSource, {
    name: opts.name,
    type: opts.type ?? 'dcat-us',
    url: `http://source.example/${opts.name}/data.json`,
    organization: org,
    deleteRemoved: opts.deleteRemoved ?? false,
    schedule: null,
  });
  await em.flush();
  return source;
}

export async function makeRun(app: TestApp, source: HarvestSource): Promise<HarvestRun> {
  const em = app.almanac.services.orm.em.fork();
  const run = em.create(HarvestRun, {
    source: source.id,
    workflowId: `harvest-${source.id}`,
    runId: randomUUID(),
    status: 'running',
    startedAt: new Date(),
    since: null,
    pages: 0,
  });
  await em.flush();
  return run;
}

export const resource = (url: string, extra: Partial<HarvestResource> = {}): HarvestResource => ({
  url,
  name: null,
  description: null,
  format: null,
  mimetype: null,
  size: null,
  ...extra,
});

export function harvestRecord(remoteId: string, extra: Partial<HarvestRecord> = {}): HarvestRecord {
  return {
    remoteId,
    remoteUrl: `http://source.example/dataset/${remoteId}`,
    name: remoteId,
    title: `Title of ${remoteId}`,
    notes: 'Some notes',
    tags: ['alpha', 'beta'],
    licenseId: 'cc-by',
    organization: null,
    groups: [],
    private: false,
    author: null,
    authorEmail: null,
    maintainer: null,
    maintainerEmail: null,
    version: null,
    url: null,
    modified: '2025-01-01T00:00:00Z',
    resources: [resource(`http://files.example/${remoteId}.csv`, { format: 'csv', name: 'Data' })],
    ...extra,
  };
}
