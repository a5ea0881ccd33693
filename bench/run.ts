/** `npm run bench`: runs every benchmark and prints one JSON line per benchmark. */
import { benchStartup } from './startup.ts';

console.log(JSON.stringify({ bench: 'startup', ...(await benchStartup(Number(process.env.BENCH_RUNS ?? 3))) }));
