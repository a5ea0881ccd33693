import type { listDatasets } from '../../domain/datasets/list.ts';
import type { getDataset } from '../../domain/datasets/lifecycle.ts';

export type DatasetPage = Awaited<ReturnType<typeof listDatasets>>;
export type DatasetHit = DatasetPage['results'][number];
export type DatasetDetail = Awaited<ReturnType<typeof getDataset>>;
