import { EmbeddingsUnavailable, type EmbeddingProvider } from './provider.ts';

export interface OpenAIEmbeddingOptions {
  /** The server's base URL, with or without a trailing `/v1`. */
  url: string;
  model: string;
  apiKey?: string;
  batchSize: number;
  /** Per request. */
  timeoutMs?: number;
}

const HEALTH_TTL_MS = 30_000;
const HEALTH_TIMEOUT_MS = 5_000;

/** Any server that speaks OpenAI's `POST /v1/embeddings`: Ollama, vLLM, Hugging Face TEI, OpenAI itself. */
export class OpenAIEmbeddingProvider implements EmbeddingProvider {
  readonly model: string;
  private readonly endpoint: string;
  private dims?: number;
  private health?: { at: number; answer: Promise<boolean> };

  constructor(private readonly options: OpenAIEmbeddingOptions) {
    this.model = options.model;
    this.endpoint = `${options.url.replace(/\/+$/, '').replace(/\/v1$/, '')}/v1/embeddings`;
  }

  async dimensions(): Promise<number> {
    if (this.dims === undefined) this.dims = (await this.embed(['dimensions']))[0].length;
    return this.dims;
  }

  async embed(texts: string[]): Promise<Float32Array[]> {
    const vectors: Float32Array[] = [];
    for (let i = 0; i < texts.length; i += this.options.batchSize) {
      vectors.push(...(await this.request(texts.slice(i, i + this.options.batchSize), this.options.timeoutMs ?? 30_000)));
    }
    return vectors;
  }

  /** Asks the server to embed one word; the answer is kept for 30 s so that health probes stay cheap. */
  healthy(): Promise<boolean> {
    if (!this.health || Date.now() - this.health.at > HEALTH_TTL_MS) {
      const answer = this.request(['health'], HEALTH_TIMEOUT_MS).then(
        () => true,
        () => false,
      );
      this.health = { at: Date.now(), answer };
    }
    return this.health.answer;
  }

  async close(): Promise<void> {}

  private async request(input: string[], timeoutMs: number): Promise<Float32Array[]> {
    const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json' };
    if (this.options.apiKey) headers.authorization = `Bearer ${this.options.apiKey}`;
    let response: Response;
    try {
      response = await fetch(this.endpoint, {
        method: 'POST',
        headers,
        body: JSON.stringify({ model: this.model, input }),
        signal: AbortSignal.timeout(timeoutMs),
      });
    } catch (err) {
      const reason = err instanceof Error && err.name === 'TimeoutError' ? `no answer within ${timeoutMs} ms` : describeFetchError(err);
      throw new EmbeddingsUnavailable(`embeddings server ${this.endpoint} unreachable: ${reason}`);
    }
    const body = await response.text();
    if (!response.ok) {
      throw new EmbeddingsUnavailable(
        `embeddings server ${this.endpoint} answered ${response.status} ${response.statusText}${this.serverMessage(body)}`,
      );
    }
    return this.parse(body, input.length);
  }

  private parse(body: string, expected: number): Float32Array[] {
    let data: unknown;
    try {
      data = (JSON.parse(body) as { data?: unknown }).data;
    } catch {
      data = undefined;
    }
    const rows = Array.isArray(data) ? (data as { index?: unknown; embedding?: unknown }[]) : [];
    const wellFormed =
      rows.length === expected &&
      rows.every((r) => typeof r.index === 'number' && Array.isArray(r.embedding) && r.embedding.length > 0) &&
      new Set(rows.map((r) => r.index)).size === expected &&
      rows.every((r) => (r.embedding as unknown[]).length === (rows[0].embedding as unknown[]).length) &&
      rows.every((r) => (r.embedding as unknown[]).every((x) => typeof x === 'number' && Number.isFinite(x)));
    if (!wellFormed) {
      throw new EmbeddingsUnavailable(
        `embeddings server ${this.endpoint} sent an unexpected answer for ${expected} inputs (expected {"data": [{"index", "embedding"}, ...]})`,
      );
    }
    // The spec lets a server answer out of order; `index` names the input.
    return [...rows].sort((a, b) => (a.index as number) - (b.index as number)).map((r) => normalize(r.embedding as number[]));
  }

  /** The server's own explanation, shortened, with the API key blanked should a server echo it. */
  private serverMessage(body: string): string {
    let message = body;
    try {
      const parsed = JSON.parse(body) as { error?: unknown; message?: unknown; detail?: unknown };
      const error = parsed.error as { message?: unknown } | string | undefined;
      const candidate = (typeof error === 'object' ? error?.message : error) ?? parsed.message ?? parsed.detail;
      if (candidate !== undefined) message = typeof candidate === 'string' ? candidate : JSON.stringify(candidate);
    } catch {
      // Not JSON: the text itself.
    }
    message = message.trim().slice(0, 300);
    if (this.options.apiKey) message = message.split(this.options.apiKey).join('***');
    return message ? `: ${message}` : '';
  }
}

function normalize(values: number[]): Float32Array {
  const vector = Float32Array.from(values);
  let norm = 0;
  for (const v of vector) norm += v * v;
  norm = Math.sqrt(norm);
  if (norm > 0) for (let i = 0; i < vector.length; i++) vector[i] /= norm;
  return vector;
}

function describeFetchError(err: unknown): string {
  // undici hides the useful part (ECONNREFUSED, ENOTFOUND, ...) in `cause`.
  const cause = (err as { cause?: { code?: string; message?: string } })?.cause;
  return cause?.code ?? cause?.message ?? (err instanceof Error ? err.message : String(err));
}
