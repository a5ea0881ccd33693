import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { bundleWorkflowCode, DefaultLogger } from '@temporalio/worker';

const here = path.dirname(fileURLToPath(import.meta.url));
// Compiled (dist/src/temporal) or run from source through tsx (src/temporal): the workflows sit alike.
const workflowsPath = path.resolve(here, '../../workflows', import.meta.url.endsWith('.js') ? 'index.js' : 'index.ts');

/** Where `npm run build` writes the bundle: dist/workflow-bundle.js, beside the compiled code. */
export const BUILT_BUNDLE = path.resolve(here, '../../workflow-bundle.js');

/** Bundles the workflows (webpack, a few seconds) into `dest`, once, so that no worker start pays for it. */
export async function bundleWorkflows(dest: string): Promise<string> {
  const { code } = await bundleWorkflowCode({ workflowsPath, logger: new DefaultLogger('WARN') });
  await fs.promises.writeFile(dest, code);
  return dest;
}

/**
 * The worker's workflow code: the bundle named by ALMANAC_WORKFLOW_BUNDLE (the test runner makes one for
 * all its workers), else the build's, else the sources, bundled at worker start (development through tsx).
 */
export function workflowCode(bundle: string | undefined) {
  const codePath = bundle ?? (fs.existsSync(BUILT_BUNDLE) ? BUILT_BUNDLE : undefined);
  return codePath ? { workflowBundle: { codePath } } : { workflowsPath };
}
