/**
 * A client of its own for load benchmarks: POSTs each JSON body of a file (one per line) to a URL with a
 * token, `inFlight` at a time, and prints `{created, seconds}`. In its own process, so the server's event
 * loop measures the server alone, as with any real client.
 *
 * Usage: post-client.ts <url> <token> <bodies.jsonl> <inFlight>
 */
import { readFileSync } from 'node:fs';

const [url, token, file, inFlight] = process.argv.slice(2) as [string, string, string, string];
const bodies = readFileSync(file, 'utf8').split('\n').filter(Boolean);
const headers = { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' };

let next = 0;
let created = 0;
const started = performance.now();
const worker = async () => {
  while (next < bodies.length) {
    const res = await fetch(url, { method: 'POST', headers, body: bodies[next++] });
    if (res.status !== 201) throw new Error(`POST ${url}: ${res.status} ${await res.text()}`);
    await res.arrayBuffer();
    created++;
  }
};
await Promise.all(Array.from({ length: Number(inFlight) }, worker));
console.log(JSON.stringify({ created, seconds: (performance.now() - started) / 1000 }));
