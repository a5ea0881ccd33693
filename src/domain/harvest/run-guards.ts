import { createHash } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { HarvestRunPage, HarvestRunRecord, type HarvestRun, type HarvestSource } from '../../entities/index.ts';
import { SourceInvalid } from './errors.ts';
import type { HarvestCursor, HarvestItem } from './record.ts';

/**
 * What keeps a run from reading a source forever: the source's caps on pages and minutes, and two repeat
 * checks across the whole run, not only against the page before (a reader's own check): a page asked for
 * again under another number (`hydra:next` going A → B → A), and a page bringing nothing but records
 * earlier pages brought (a CKAN site answering every `start` with the same record). Each is safe to run
 * again for the same page number, as an activity's retry does.
 */

/** A run stopped by its source's caps: not the source's fault to retry, and said in the run's reason. */
export class HarvestCapReached extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'HarvestCapReached';
  }
}

export function checkRunCaps(source: HarvestSource, run: HarvestRun, pageNo: number, now = new Date()) {
  if (pageNo > source.maxPages) {
    throw new HarvestCapReached(`The run stopped after ${source.maxPages} pages, the source's cap (maxPages).`);
  }
  const minutes = (now.getTime() - run.startedAt.getTime()) / 60_000;
  if (minutes > source.maxRunMinutes) {
    throw new HarvestCapReached(
      `The run stopped after ${Math.floor(minutes)} minutes and ${pageNo - 1} pages, past the source's cap of ${source.maxRunMinutes} minutes (maxRunMinutes).`,
    );
  }
}

/** The cursor without what a reader carries only to compare with the page before. */
function placeOf(cursor: HarvestCursor | null): HarvestCursor {
  const { previous: _previous, ...where } = cursor ?? {};
  return Object.fromEntries(Object.entries(where).sort(([a], [b]) => (a < b ? -1 : 1)));
}

/** Records that page `pageNo` asks for `cursor`; refuses a cursor an earlier page of the run asked for. */
export async function claimRunPage(em: EntityManager, runRowId: string, cursor: HarvestCursor | null, pageNo: number) {
  const digest = createHash('sha256')
    .update(JSON.stringify(placeOf(cursor)))
    .digest('hex');
  await em
    .createQueryBuilder(HarvestRunPage)
    .insert({ run: runRowId, cursorDigest: digest, page: pageNo })
    .onConflict(['run', 'cursorDigest'])
    .ignore()
    .execute();
  const claimed = await em.fork().findOneOrFail(HarvestRunPage, { run: runRowId, cursorDigest: digest });
  if (claimed.page !== pageNo) {
    const where = typeof cursor?.url === 'string' ? cursor.url : JSON.stringify(placeOf(cursor));
    throw new SourceInvalid(`its paging goes round: page ${pageNo} asks again for ${where}, read before as page ${claimed.page}`);
  }
}

/** Refuses a page whose records were all brought by earlier pages of this run. */
export async function checkPageBringsNew(em: EntityManager, runRowId: string, pageNo: number, items: HarvestItem[]) {
  const remoteIds = [...new Set(items.map((item) => (item.kind === 'record' ? item.record.remoteId : item.remoteId)))];
  if (remoteIds.length === 0) return;
  const seen = await em.count(HarvestRunRecord, { run: runRowId, remoteId: { $in: remoteIds }, page: { $lt: pageNo } });
  if (seen === remoteIds.length) {
    throw new SourceInvalid(
      `it goes round: page ${pageNo} brought only records that earlier pages of this run brought (${remoteIds.length === 1 ? remoteIds[0] : `${remoteIds.length} records`})`,
    );
  }
}

/** The records this page applied are the page's: those of the run that have no page yet. */
export async function markPageRecords(em: EntityManager, runRowId: string, pageNo: number) {
  await em.nativeUpdate(HarvestRunRecord, { run: runRowId, page: null }, { page: pageNo });
}
