import type { ApiClient, Auth } from './client.ts';

const DEADLINE_MS = 90_000;

/**
 * Polls GET /resources/{id}/pipeline-status until the run has ended and returns the status record. A
 * run that never ends fails the test instead of hanging it; `succeeded: true` also fails on a failed run.
 */
export async function settledPipeline(api: ApiClient, resourceId: string, auth: Auth, opts: { succeeded?: boolean } = {}) {
  const deadline = Date.now() + DEADLINE_MS;
  for (;;) {
    const res = await api.get(`/api/v1/resources/${resourceId}/pipeline-status`, auth);
    if (res.status !== 200) throw new Error(`pipeline-status of ${resourceId}: ${res.status} ${res.text}`);
    if (res.body.status === 'failed' && opts.succeeded) throw new Error(`the pipeline of ${resourceId} failed: ${res.text}`);
    if (res.body.status === 'succeeded' || res.body.status === 'failed') return res.body;
    if (Date.now() > deadline)
      throw new Error(`the pipeline of ${resourceId} is still ${res.body.status} after ${DEADLINE_MS / 1000} s: ${res.text}`);
    await new Promise((r) => setTimeout(r, 150));
  }
}

/** Streams `body` to POST /resources/{id}/upload, then waits for the pipeline to succeed. */
export async function uploadAndProcess(api: ApiClient, resourceId: string, body: string, auth: Auth, contentType = 'text/csv') {
  const reply = await fetch(`${api.baseUrl}/api/v1/resources/${resourceId}/upload`, {
    method: 'POST',
    headers: { ...(auth.token ? { Authorization: `Bearer ${auth.token}` } : {}), 'Content-Type': contentType },
    body,
  });
  if (reply.status !== 200) throw new Error(`upload of ${resourceId}: ${reply.status} ${await reply.text()}`);
  return settledPipeline(api, resourceId, auth, { succeeded: true });
}
