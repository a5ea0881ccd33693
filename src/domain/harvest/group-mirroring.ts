import type { EntityManager } from '@mikro-orm/postgresql';
import { Group, type HarvestSource } from '../../entities/index.ts';
import { slugFrom } from './names.ts';
import type { HarvestRecord } from './record.ts';
import { RecordFailed, type MappedRecord } from './record-rules.ts';

/** The source's organization, when it has one and it is active; read once per page, so its deletion mid-page is seen by the next. */
export type SourceOrganization = { id: string } | null | 'deleted';

/**
 * dcat-us and dcat-ap: the source's organization. ckan: the record's organization, mirrored by name
 * (created with its title and description when missing here), else the source's. None: the record fails.
 */
export async function harvestOrganization(
  em: EntityManager,
  source: HarvestSource,
  record: MappedRecord,
  sourceOrg: SourceOrganization,
): Promise<Group> {
  const remote = source.type === 'ckan' ? record.organization : null;
  if (remote) {
    const name = slugFrom(remote.name);
    if (!name) throw new RecordFailed(`organization: "${remote.name}" cannot be an organization name here`);
    const org = await mirrorGroup(em, 'organization', name, remote.title, remote.description);
    if (org.state !== 'active') throw new RecordFailed(`organization: "${name}" is deleted here`);
    return org;
  }
  if (!sourceOrg) throw new RecordFailed('no organization: the record names none and the source has none');
  if (sourceOrg === 'deleted') throw new RecordFailed("no organization: the source's organization is deleted");
  return em.getReference(Group, sourceOrg.id);
}

/** Categories by name, created when missing; deleted ones are left out. */
export async function harvestCategories(em: EntityManager, groups: HarvestRecord['groups']): Promise<Group[]> {
  const found: Group[] = [];
  for (const g of [...groups].sort((a, b) => a.name.localeCompare(b.name))) {
    const name = slugFrom(g.name);
    if (!name) continue;
    const category = await mirrorGroup(em, 'category', name, g.title, null);
    if (category.state === 'active' && !found.includes(category)) found.push(category);
  }
  return found;
}

/** A group by kind and name, inserted when missing (concurrent runs meet in the unique (kind, name)). */
async function mirrorGroup(em: EntityManager, kind: 'organization' | 'category', name: string, title: string, description: string | null) {
  await em.execute(
    `insert into groups (id, created_at, updated_at, kind, name, title, description, state)
     values (gen_random_uuid(), now(), now(), ?, ?, ?, ?, 'active') on conflict (kind, name) do nothing`,
    [kind, name, (title || name).slice(0, 300), description],
  );
  return em.findOneOrFail(Group, { kind, name });
}
