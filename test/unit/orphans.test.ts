import test from 'ava';
import { orphanReason, type StoredResource } from '../../src/domain/resources/orphans.ts';
import { contentsKey, fetchedKey, fileKey, previewKey, sourceKey, uploadKey } from '../../src/storage/keys.ts';

const ID = '3f2b8c1e-7d4a-4e8b-9c2f-1a2b3c4d5e6f';
const NOW = new Date('2026-11-25T12:00:00Z');

const upload = (extras: Record<string, unknown>): StoredResource => ({ id: ID, urlType: 'upload', url: 'https://x/download', extras });

test('a resource that is gone leaves every one of its objects an orphan', (t) => {
  t.is(orphanReason(fileKey(ID, 'a'), null, NOW), 'its resource no longer exists');
});

test("an upload's served file is live; a file a newer upload replaced is an orphan; one moved by an unfinished completion is kept", (t) => {
  const resource = upload({ upload: { key: fileKey(ID, 'b') }, pendingUpload: { session: 'c', at: NOW.toISOString() } });
  t.is(orphanReason(fileKey(ID, 'b'), resource, NOW), null);
  t.is(orphanReason(fileKey(ID, 'a'), resource, NOW), 'a file replaced by a newer upload');
  t.is(orphanReason(fileKey(ID, 'c'), resource, NOW), null);
});

test("a pending session's bytes are kept until its URL expires; any other session's are orphans at once", (t) => {
  const resource = upload({ pendingUpload: { session: 'c', at: NOW.toISOString(), expiresAt: '2026-11-25T13:00:00Z' } });
  t.is(orphanReason(uploadKey(ID, 'c'), resource, NOW), null);
  t.is(orphanReason(uploadKey(ID, 'c'), resource, new Date('2026-11-25T13:00:01Z')), 'an upload never completed before its URL expired');
  t.is(orphanReason(uploadKey(ID, 'd'), resource, NOW), 'bytes sent to an upload URL after its upload was completed or replaced');
});

test('files uploaded before sessions existed stay live at the old source key', (t) => {
  t.is(orphanReason(sourceKey(ID), upload({ upload: { filename: 'a.csv' } }), NOW), null);
  t.is(orphanReason(sourceKey(ID), upload({ upload: { key: fileKey(ID, 'b') } }), NOW), 'a file the resource no longer serves');
  t.is(orphanReason(sourceKey(ID), { id: ID, urlType: 'link', url: 'https://example.org/a.csv', extras: {} }, NOW), null);
});

test("the served preview and a running run's preview are live; a replaced one is an orphan; text lives while the record has it", (t) => {
  const resource = upload({
    preview: { key: previewKey(ID, 'run-1') },
    pipeline: { status: 'running', runId: 'run-2' },
  });
  t.is(orphanReason(previewKey(ID, 'run-1'), resource, NOW), null);
  t.is(orphanReason(previewKey(ID, 'run-2'), resource, NOW), null);
  t.is(orphanReason(previewKey(ID, 'run-0'), resource, NOW), 'a preview replaced by a newer run');
  t.is(orphanReason(contentsKey(ID), resource, NOW), null, 'a running run may be writing it');
  t.is(
    orphanReason(contentsKey(ID), upload({ pipeline: { status: 'succeeded', runId: 'run-2' } }), NOW),
    'file text the resource no longer has',
  );
  t.is(orphanReason(`resources/${ID}/something-else`, resource, NOW), 'not an object the catalog writes');
});

test('the file and preview a retained version names are live; the same objects without it are orphans', (t) => {
  const resource = upload({ upload: { key: fileKey(ID, 'c') }, preview: { key: previewKey(ID, 'run-3') } });
  const versioned = new Set([fileKey(ID, 'a'), previewKey(ID, 'run-1')]);
  t.is(orphanReason(fileKey(ID, 'a'), resource, NOW, versioned), null);
  t.is(orphanReason(previewKey(ID, 'run-1'), resource, NOW, versioned), null);
  t.is(orphanReason(fileKey(ID, 'b'), resource, NOW, versioned), 'a file replaced by a newer upload');
  t.is(orphanReason(previewKey(ID, 'run-2'), resource, NOW, versioned), 'a preview replaced by a newer run');
  t.is(orphanReason(fileKey(ID, 'a'), resource, NOW), 'a file replaced by a newer upload');
  t.is(orphanReason(fileKey(ID, 'a'), null, NOW, versioned), 'its resource no longer exists');
});

test("a link's fetched copy is live while served, being written or versioned; a replaced one is an orphan", (t) => {
  const link = (extras: Record<string, unknown>): StoredResource => ({ id: ID, urlType: 'link', url: 'https://example.org/a.csv', extras });
  const resource = link({ fetched: { key: fetchedKey(ID, 'run-2') }, pipeline: { status: 'running', runId: 'run-3' } });
  t.is(orphanReason(fetchedKey(ID, 'run-2'), resource, NOW), null);
  t.is(orphanReason(fetchedKey(ID, 'run-3'), resource, NOW), null);
  t.is(orphanReason(fetchedKey(ID, 'run-1'), resource, NOW), 'a copy of a link replaced by a newer fetch');
  t.is(orphanReason(fetchedKey(ID, 'run-1'), resource, NOW, new Set([fetchedKey(ID, 'run-1')])), null);
  t.is(orphanReason(sourceKey(ID), resource, NOW), 'a file the resource no longer serves');
});
