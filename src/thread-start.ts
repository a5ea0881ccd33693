import { Worker } from 'node:worker_threads';

/**
 * A worker thread running `<name>.js` beside `base` when this is the built code, or under tsx (tests,
 * `npm run dev`) the `<name>.ts` source, loaded through tsx's API, as Node 20 does not hand a thread
 * the loader of its process.
 */
export function startModuleThread(base: string, name: string, workerData: unknown): Worker {
  if (base.endsWith('.js')) return new Worker(new URL(`./${name}.js`, base), { workerData });
  const source = new URL(`./${name}.ts`, base).href;
  const tsx = import.meta.resolve('tsx/esm/api');
  const boot = `import(${JSON.stringify(tsx)}).then((api) => { api.register(); return import(${JSON.stringify(source)}); })`;
  return new Worker(boot, { eval: true, workerData });
}
