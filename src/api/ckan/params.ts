import type { Context } from 'koa';
import type { DomainContext } from '../../domain/context.ts';
import { depthExceeds, MAX_JSON_DEPTH } from '../../http/middleware/json-depth.ts';
import { isMultipart, readMultipart, type ActionFile } from './multipart.ts';
import { badRequest, invalidParameters, payloadTooLarge, type FieldError } from '../../domain/errors.ts';
import { parseJsonText } from '../../http/safe-json.ts';

/** The largest start/offset an action takes: far past any catalog, well inside what the databases count. */
export const MAX_OFFSET = 1_000_000_000;

/**
 * An action's parameters: the query string of a GET (a repeated key is a list; JSON-valued parameters
 * such as `facet.field` arrive as JSON text), the JSON object body of a POST. Readers coerce what CKAN
 * coerces (numbers and booleans sent as strings) and collect every bad field for one Validation Error.
 */
export class ActionParams {
  private readonly errors: FieldError[] = [];

  constructor(
    private readonly values: Record<string, unknown>,
    /** A file sent with the call in multipart/form-data (`upload`), still streaming. */
    readonly file?: ActionFile,
  ) {}

  /** The parameters as sent, for the entry-point guard against text nothing can store. */
  get raw(): Readonly<Record<string, unknown>> {
    return this.values;
  }

  has(key: string): boolean {
    return this.values[key] !== undefined && this.values[key] !== null && this.values[key] !== '';
  }

  private fail(path: string, message: string): undefined {
    this.errors.push({ path, message });
    return undefined;
  }

  /** A single text value; a key given more than once is refused (never one of them silently dropped). */
  string(key: string): string | undefined {
    let v = this.values[key];
    if (Array.isArray(v)) {
      if (v.length > 1) return this.fail(key, 'Give one value, not several');
      v = v[0];
    }
    if (v === undefined || v === null) return undefined;
    if (typeof v === 'number' || typeof v === 'boolean') return String(v);
    if (typeof v !== 'string') return this.fail(key, 'Must be a string');
    return v;
  }

  /**
   * A whole number in [min, max]; `clampMax` caps larger values instead of refusing them (CKAN's `rows`).
   * One past what a double holds exactly is refused whatever the bounds: it would reach SQL as garbage.
   */
  int(key: string, opts: { min?: number; max?: number; clampMax?: boolean } = {}): number | undefined {
    const raw = this.string(key);
    if (raw === undefined || raw.trim() === '') return undefined;
    if (!/^-?\d+$/.test(raw.trim())) return this.fail(key, 'Invalid integer');
    const n = Number(raw);
    if (!Number.isSafeInteger(n)) return this.fail(key, 'Integer out of range');
    if (opts.min !== undefined && n < opts.min) return this.fail(key, `Must be a natural number${opts.min > 0 ? ' above zero' : ''}`);
    if (opts.max !== undefined && n > opts.max) return opts.clampMax ? opts.max : this.fail(key, `Must be at most ${opts.max}`);
    return n;
  }

  /** CKAN's boolean validator: true/false, yes/no, on/off, 1/0 (any case). */
  bool(key: string): boolean | undefined {
    const v = this.values[key];
    if (typeof v === 'boolean') return v;
    const raw = this.string(key);
    if (raw === undefined || raw === '') return undefined;
    const s = raw.trim().toLowerCase();
    if (['true', 'yes', 'on', '1', 't', 'y'].includes(s)) return true;
    if (['false', 'no', 'off', '0', 'f', 'n'].includes(s)) return false;
    return this.fail(key, 'Value must be one of: true, false');
  }

  /** A list of strings: a JSON array, a JSON array as text, a repeated key, or one string. */
  list(key: string, opts: { jsonText?: boolean } = {}): string[] | undefined {
    const v = this.values[key];
    if (v === undefined || v === null || v === '') return undefined;
    const strings = (items: unknown[]) =>
      items.every((i) => typeof i === 'string') ? (items as string[]) : this.fail(key, 'Must be a list of strings');
    if (Array.isArray(v)) {
      if (opts.jsonText && v.length === 1 && typeof v[0] === 'string' && v[0].trim().startsWith('[')) return this.parseList(key, v[0]);
      return strings(v);
    }
    if (typeof v !== 'string') return this.fail(key, 'Must be a list of strings');
    if (opts.jsonText && v.trim().startsWith('[')) return this.parseList(key, v);
    return [v];
  }

  private parseList(key: string, text: string): string[] | undefined {
    try {
      const parsed: unknown = parseJsonText(text);
      if (Array.isArray(parsed) && parsed.every((i) => typeof i === 'string')) return parsed;
    } catch {
      // reported below
    }
    return this.fail(key, 'Must be a JSON list of strings');
  }

  /** Throws one Validation Error naming every bad field read so far. */
  check(): void {
    if (this.errors.length) throw invalidParameters(this.errors);
  }
}

/** `MAX_JSON_BODY` ("1mb", "512kb", "100b") in bytes, the cap a body read here shares with the JSON parser. */
function bodyLimit(ctx: Context): number {
  const configured = (ctx.state.domain as DomainContext | undefined)?.config.http.maxJsonBody ?? '1mb';
  const m = /^(\d+)(b|kb|mb)$/i.exec(configured);
  if (!m) return 1 << 20;
  return Number(m[1]) * { b: 1, kb: 1024, mb: 1 << 20 }[m[2].toLowerCase() as 'b' | 'kb' | 'mb'];
}

/** The parameters of a request: the query string of a GET; the body of a POST (over any query string). */
export async function readParams(ctx: Context): Promise<ActionParams> {
  const query = { ...(ctx.query as Record<string, unknown>) };
  if (ctx.method !== 'POST') return new ActionParams(query);
  if (isMultipart(ctx)) {
    const { fields, file } = await readMultipart(ctx, bodyLimit(ctx));
    return new ActionParams({ ...query, ...fields }, file);
  }
  let body: unknown = (ctx.request as { body?: unknown }).body;
  // The JSON body parser leaves other types unread: CKAN also takes a form or JSON sent as another type.
  const unread = !ctx.req.readableEnded && (body === undefined || (typeof body === 'object' && body !== null && !Object.keys(body).length));
  // A chunked body has no Content-Length, and is a body all the same.
  const hasBody = Number(ctx.get('Content-Length') || '0') > 0 || !!ctx.get('Transfer-Encoding');
  if (unread && hasBody) body = await readOtherBody(ctx);
  if (body === undefined || body === null) body = {};
  if (typeof body !== 'object' || Array.isArray(body)) throw badRequest('JSON Error: the body must be a JSON object');
  return new ActionParams({ ...query, ...(body as Record<string, unknown>) });
}

async function readOtherBody(ctx: Context): Promise<unknown> {
  const limit = bodyLimit(ctx);
  if (Number(ctx.get('Content-Length') || '0') > limit) throw payloadTooLarge(`The body is larger than ${limit} bytes.`);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of ctx.req) {
    size += (chunk as Buffer).length;
    if (size > limit) throw payloadTooLarge(`The body is larger than ${limit} bytes.`);
    chunks.push(chunk as Buffer);
  }
  const text = Buffer.concat(chunks).toString('utf8').trim();
  if (text.startsWith('{')) {
    let parsed: unknown;
    try {
      parsed = parseJsonText(text);
    } catch {
      throw badRequest('JSON Error: the body is not valid JSON');
    }
    if (depthExceeds(parsed, MAX_JSON_DEPTH)) throw badRequest(`The JSON body is nested more than ${MAX_JSON_DEPTH} levels deep.`);
    return parsed;
  }
  const form: Record<string, string | string[]> = {};
  for (const [k, v] of new URLSearchParams(text)) {
    const prev = form[k];
    form[k] = prev === undefined ? v : [...(Array.isArray(prev) ? prev : [prev]), v];
  }
  return form;
}
