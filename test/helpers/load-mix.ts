import type { ApiClient, TestUser } from './client.ts';

/**
 * A mixed load on a running Almanac: `clients` users at once, each looping over searches, dataset reads,
 * queries, uploads, MCP calls and the light endpoints until the deadline, while the server's memory and
 * handles are sampled every second. Shared by the soak bench (bench/soak.ts, minutes) and its short
 * version in the suite (test/load/soak.test.ts, seconds). Every answer is classified: expected, planned
 * (a 429 the throttles owe) or unplanned (anything else, 5xx first of all).
 */

export interface LoadSubject {
  api: ApiClient;
  adminToken: string;
  /** Samples the serving process: resident memory and open handles. */
  sample: () => { rssBytes: number; handles: number };
}

export interface LoadReport {
  seconds: number;
  clients: number;
  requests: number;
  unplanned: Array<{ route: string; status: number; body: string }>;
  routes: Record<string, { count: number; p50Ms: number; p95Ms: number }>;
  /** One sample a second: seconds since the start, RSS in MB, open handles. */
  curve: Array<{ s: number; rssMb: number; handles: number }>;
  /** The one-query-per-caller rule and the login throttle, tried under the load. */
  throttles: { queryBusyHeld: boolean; loginThrottleHeld: boolean };
}

const WORDS = ['rivers', 'budget', 'stations', 'population', 'energy', 'schools', 'traffic', 'water', 'air quality', 'health'];
const CSV = (n: number) =>
  `station,reading,at\n${Array.from({ length: 200 }, (_, i) => `s${i % 17},${(i * n) % 97}.5,2024-05-${(i % 28) + 1}`).join('\n')}\n`;

interface Seat {
  user: TestUser;
  dataset: string;
  resource: string;
}

async function seat(subject: LoadSubject, index: number, org: string): Promise<Seat> {
  const { api } = subject;
  const user = await api.newUser(`load-${index}-${Date.now().toString(36)}`);
  const admin = { token: subject.adminToken };
  await api.post(`/api/v1/organizations/${org}/members`, { user: user.id, role: 'editor' }, admin);
  const name = `load-${index}-${Date.now().toString(36)}`;
  const created = await api.post(
    '/api/v1/packages',
    {
      name,
      title: `Readings of ${WORDS[index % WORDS.length]} ${index}`,
      notes: `Measurements of ${WORDS[(index + 3) % WORDS.length]} across stations.`,
      ownerOrg: org,
      licenseId: 'cc-by-4.0',
      tags: [WORDS[index % WORDS.length]!.replace(' ', '-')],
      resources: [{ urlType: 'upload', name: 'Readings', format: 'CSV' }],
    },
    { token: user.token },
  );
  if (created.status !== 201) throw new Error(`seat ${index}: ${created.status} ${created.text}`);
  return { user, dataset: name, resource: created.body.resources[0].id };
}

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;

export async function runLoad(
  subject: LoadSubject,
  opts: { clients: number; seconds: number; log?: (line: string) => void },
): Promise<LoadReport> {
  const { api } = subject;
  const org = `load-org-${Date.now().toString(36)}`;
  const made = await api.post('/api/v1/organizations', { name: org }, { token: subject.adminToken });
  if (made.status !== 201) throw new Error(`organization: ${made.status} ${made.text}`);
  // Seats are made ten at a time: registration hashes passwords on purpose slowly.
  // One more seat than clients: the throttle checks run as a caller of their own.
  const seats: Seat[] = [];
  for (let i = 0; i <= opts.clients; i += 10) {
    seats.push(...(await Promise.all(Array.from({ length: Math.min(10, opts.clients + 1 - i) }, (_, k) => seat(subject, i + k, org)))));
  }
  const checker = seats.pop()!;
  // Every seat's resource gets a first file, so queries have a preview to read.
  await Promise.all([...seats, checker].map((s) => upload(api, s, 0)));
  await Promise.all([...seats, checker].map((s) => untilQueryable(api, s)));

  const latencies: Record<string, number[]> = {};
  const unplanned: LoadReport['unplanned'] = [];
  let requests = 0;
  const timed = async (route: string, call: () => Promise<{ status: number; text: string }>, expected: number[]) => {
    const started = performance.now();
    const reply = await call().catch((err: Error) => ({ status: 0, text: err.message }));
    (latencies[route] ??= []).push(performance.now() - started);
    requests++;
    if (!expected.includes(reply.status)) unplanned.push({ route, status: reply.status, body: reply.text.slice(0, 300) });
  };

  const started = Date.now();
  const deadline = started + opts.seconds * 1000;
  const curve: LoadReport['curve'] = [];
  const sampler = setInterval(() => {
    const { rssBytes, handles } = subject.sample();
    curve.push({ s: Math.round((Date.now() - started) / 1000), rssMb: Math.round(rssBytes / 2 ** 20), handles });
    opts.log?.(`t=${curve.at(-1)!.s}s rss=${curve.at(-1)!.rssMb}MB handles=${handles} requests=${requests} unplanned=${unplanned.length}`);
  }, 1000);

  const client = async (s: Seat, index: number) => {
    const auth = { token: s.user.token };
    for (let round = 0; Date.now() < deadline; round++) {
      const pick = (round * 7 + index) % 20;
      const word = WORDS[(round + index) % WORDS.length]!;
      if (pick < 7) await timed('GET /packages?q=', () => api.get(`/api/v1/packages?q=${encodeURIComponent(word)}`, auth), [200]);
      else if (pick < 12) await timed('GET /packages/{id}', () => api.get(`/api/v1/packages/${s.dataset}`, auth), [200]);
      else if (pick < 14)
        await timed('POST /resources/{id}/query', () => api.post(`/api/v1/resources/${s.resource}/query`, { sql: QUERY }, auth), [200]);
      else if (pick < 15) await timed('POST /resources/{id}/upload', () => upload(api, s, round), [200]);
      else if (pick < 17) await timed('POST /api/mcp', () => mcpSearch(api, s.user.token, word), [200]);
      else if (pick < 19) await timed('GET /api/health', () => api.get('/api/health'), [200]);
      else await timed('GET /site/settings', () => api.get('/api/v1/site/settings'), [200]);
    }
  };
  const throttles = checkThrottles(api, checker);
  await Promise.all(seats.map((s, i) => client(s, i)));
  clearInterval(sampler);
  const { rssBytes, handles } = subject.sample();
  curve.push({ s: Math.round((Date.now() - started) / 1000), rssMb: Math.round(rssBytes / 2 ** 20), handles });

  const routes: LoadReport['routes'] = {};
  for (const [route, values] of Object.entries(latencies)) {
    const sorted = [...values].sort((a, b) => a - b);
    routes[route] = { count: sorted.length, p50Ms: Math.round(percentile(sorted, 50)), p95Ms: Math.round(percentile(sorted, 95)) };
  }
  return { seconds: opts.seconds, clients: opts.clients, requests, unplanned, routes, curve, throttles: await throttles };
}

const QUERY = 'SELECT station, avg(reading) AS mean, count(*) AS n FROM data GROUP BY station ORDER BY station';

async function upload(api: ApiClient, s: Seat, round: number) {
  const reply = await fetch(`${api.baseUrl}/api/v1/resources/${s.resource}/upload`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${s.user.token}`, 'Content-Type': 'text/csv' },
    body: CSV(round + 1),
  });
  return { status: reply.status, text: await reply.text() };
}

async function untilQueryable(api: ApiClient, s: Seat) {
  const deadline = Date.now() + 120_000;
  while (Date.now() < deadline) {
    const schema = await api.get(`/api/v1/resources/${s.resource}/schema`, { token: s.user.token });
    if (schema.body?.queryable) return;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`resource ${s.resource} never became queryable`);
}

/** One MCP tool call over Streamable HTTP, as a stateless client sends it. */
async function mcpSearch(api: ApiClient, token: string, query: string) {
  const reply = await fetch(`${api.baseUrl}/api/mcp`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'search_datasets', arguments: { query } } }),
  });
  const text = await reply.text();
  // A JSON-RPC error inside a 200 is still a failure of the call.
  return { status: reply.status === 200 && /"error"\s*:/.test(text) && !/"result"/.test(text) ? 500 : reply.status, text };
}

/**
 * Under the load: the same caller's second query while its first runs is 429 query_busy, and a burst of
 * wrong passwords for one account ends in 429 login_rate_limited.
 */
async function checkThrottles(api: ApiClient, s: Seat) {
  const auth = { token: s.user.token };
  // Two at once: whichever takes the caller's lock first runs, the other must be refused.
  const slow = { sql: 'SELECT count(*) AS n FROM range(200000000) a' };
  const replies = await Promise.all([0, 1].map(() => api.post(`/api/v1/resources/${s.resource}/query`, slow, auth)));
  const busy = replies.filter((r) => r.status === 429 && r.body?.code === 'query_busy');
  const queryBusyHeld = busy.length === 1 && replies.some((r) => r.status === 200);
  let loginThrottleHeld = false;
  for (let i = 0; i < 8 && !loginThrottleHeld; i++) {
    const reply = await api.post('/api/v1/auth/login', { username: s.user.username, password: 'not-the-password' });
    loginThrottleHeld = reply.status === 429 && reply.body?.code === 'login_rate_limited';
  }
  return { queryBusyHeld, loginThrottleHeld };
}
