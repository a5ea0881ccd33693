/**
 * The local embedding model's throughput by batch size, on the texts a harvest embeds: the dataset and
 * resource texts of the first 150 datasets of GSA's data.json (../shared/data/dcat-us/gsa.json). Picks
 * EMBEDDINGS_BATCH_SIZE's default for the local provider; each line is texts per second.
 */
import fsp from 'node:fs/promises';
import path from 'node:path';
import { createLogger } from '../src/logger.ts';
import { packageText, resourceText } from '../src/search/documents.ts';
import { LocalEmbeddingProvider } from '../src/search/embeddings/local.ts';
import { SHARED_DATA } from '../test/helpers/shared-data.ts';
import { embeddingModelPath } from '../test/helpers/tools.ts';

interface DcatUsDataset {
  title: string;
  description?: string;
  keyword?: string[];
  distribution?: Array<{ title?: string; description?: string; format?: string }>;
}

export async function benchEmbeddings() {
  const catalog = JSON.parse(await fsp.readFile(path.join(SHARED_DATA, 'dcat-us/gsa.json'), 'utf8')) as { dataset: DcatUsDataset[] };
  const texts = catalog.dataset.slice(0, 150).flatMap((d) => [
    packageText({
      id: '',
      name: '',
      title: d.title,
      notes: d.description ?? null,
      tags: d.keyword ?? [],
      organizationTitle: 'GSA',
      resources: [],
    }),
    ...(d.distribution ?? []).map((r) =>
      resourceText(
        { id: '', name: r.title ?? null, description: r.description ?? null, format: r.format ?? null, columns: [], contents: null },
        d.title,
      ),
    ),
  ]);
  const modelPath = await embeddingModelPath(createLogger('warn'));
  const rates: Record<string, number> = {};
  for (const batchSize of [1, 4, 8, 16, 32, 64]) {
    const provider = new LocalEmbeddingProvider({ model: 'Xenova/all-MiniLM-L6-v2', modelPath, cacheDir: modelPath, batchSize });
    await provider.embed(texts.slice(0, 16)); // loads the model and warms the session
    const started = performance.now();
    await provider.embed(texts);
    rates[batchSize] = Math.round(texts.length / ((performance.now() - started) / 1000));
    await provider.close();
    console.log(`rate embeddings-batch-${batchSize}: ${rates[batchSize]} texts/s (${texts.length} texts)`);
  }
  return { texts: texts.length, textsPerSecond: rates };
}
