import { authorize } from '../../policies/index.ts';
import type { Actor } from '../actor.ts';
import { inOneTransaction } from '../after-commit.ts';
import type { DomainContext } from '../context.ts';
import { conflict, notFound } from '../errors.ts';
import { lockedResource, serveVersion, versionRows } from '../pipeline/version-record.ts';
import { startPipeline } from '../pipeline/start.ts';
import { loadVisibleResource } from './resources.ts';
import { isCurrent, loadReadableVersion, presentVersion } from './versions.ts';

/**
 * The editor's answer to a held version (issue 30 §3): accept it, and the resource serves it (its file, its
 * preview, its schema) from that commit on; or decline it, and the version served all along stays. Either
 * way the version is kept, under retention, with who decided and when.
 */

async function review(ctx: DomainContext, actor: Actor, id: string, n: number, decision: 'accepted' | 'declined') {
  const { resource, subject } = await loadVisibleResource(ctx, actor, id, true);
  authorize(actor, 'dataset:edit', subject);
  if (subject.state === 'deleted') throw notFound('Resource');
  await inOneTransaction(ctx, async (tx) => {
    const locked = await lockedResource(tx.em, resource.id);
    const version = locked && (await versionRows(tx.em, resource.id)).find((row) => row.n === n);
    if (!locked || !version) throw notFound('Version');
    if (version.review !== 'pending') throw conflict(`Version ${n} is not waiting for a review (it is ${version.review ?? 'not held'}).`);
    await tx.em.execute(`update resource_versions set review = ?, reviewed_by = ?, reviewed_at = now() where resource_id = ? and n = ?`, [
      decision,
      actor.userId,
      resource.id,
      n,
    ]);
    if (decision === 'declined') {
      await tx.em.execute(`update resources set extras = extras - 'pendingVersion' where id = ?`, [resource.id]);
      return;
    }
    await serveVersion(tx.em, locked, version, null);
    // The file text and the search index follow the bytes served: a run over them, once this commits, refreshes both.
    await startPipeline(tx, resource.id);
  });
  const answered = await loadReadableVersion(ctx, actor, resource.id, n);
  return presentVersion(answered.version, isCurrent(answered.resource, answered.version));
}

/** POST /resources/{id}/versions/{n}/accept */
export const acceptVersion = (ctx: DomainContext, actor: Actor, id: string, n: number) => review(ctx, actor, id, n, 'accepted');

/** POST /resources/{id}/versions/{n}/decline */
export const declineVersion = (ctx: DomainContext, actor: Actor, id: string, n: number) => review(ctx, actor, id, n, 'declined');
