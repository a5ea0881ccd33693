import type { Context } from 'koa';
import { badRequest, invalidParameters, type FieldError } from '../../domain/errors.ts';

/**
 * An action's parameters: the query string of a GET (a repeated key is a list; JSON-valued parameters
 * such as `facet.field` arrive as JSON text), the JSON object body of a POST. Readers coerce what CKAN
 * coerces (numbers and booleans sent as strings) and collect every bad field for one Validation Error.
 */
export class ActionParams {
  private readonly errors: FieldError[] = [];

  constructor(private readonly values: Record<string, unknown>) {}

  has(key: string): boolean {
    return this.values[key] !== undefined && this.values[key] !== null && this.values[key] !== '';
  }

  private fail(path: string, message: string): undefined {
    this.errors.push({ path, message });
    return undefined;
  }

  /** A single text value (the last of a repeated key). */
  string(key: string): string | undefined {
    let v = this.values[key];
    if (Array.isArray(v)) v = v.at(-1);
    if (v === undefined || v === null) return undefined;
    if (typeof v === 'number' || typeof v === 'boolean') return String(v);
    if (typeof v !== 'string') return this.fail(key, 'Must be a string');
    return v;
  }

  /** A whole number in [min, max]; `clampMax` caps larger values instead of refusing them (CKAN's `rows`). */
  int(key: string, opts: { min?: number; max?: number; clampMax?: boolean } = {}): number | undefined {
    const raw = this.string(key);
    if (raw === undefined || raw.trim() === '') return undefined;
    if (!/^-?\d+$/.test(raw.trim())) return this.fail(key, 'Invalid integer');
    const n = Number(raw);
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
      const parsed: unknown = JSON.parse(text);
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

const MAX_FORM_BYTES = 1 << 20;

/** The parameters of a request: the query string of a GET; the body of a POST (over any query string). */
export async function readParams(ctx: Context): Promise<ActionParams> {
  const query = { ...(ctx.query as Record<string, unknown>) };
  if (ctx.method !== 'POST') return new ActionParams(query);
  let body: unknown = (ctx.request as { body?: unknown }).body;
  // The JSON body parser leaves other types unread: CKAN also takes a form or JSON sent as another type.
  const unread = !ctx.req.readableEnded && (body === undefined || (typeof body === 'object' && body !== null && !Object.keys(body).length));
  if (unread && Number(ctx.get('Content-Length') || '0') > 0) body = await readOtherBody(ctx);
  if (body === undefined || body === null) body = {};
  if (typeof body !== 'object' || Array.isArray(body)) throw badRequest('JSON Error: the body must be a JSON object');
  return new ActionParams({ ...query, ...(body as Record<string, unknown>) });
}

async function readOtherBody(ctx: Context): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of ctx.req) {
    size += (chunk as Buffer).length;
    if (size > MAX_FORM_BYTES) throw badRequest('The body is too large');
    chunks.push(chunk as Buffer);
  }
  const text = Buffer.concat(chunks).toString('utf8').trim();
  if (text.startsWith('{')) {
    try {
      return JSON.parse(text);
    } catch {
      throw badRequest('JSON Error: the body is not valid JSON');
    }
  }
  const form: Record<string, string | string[]> = {};
  for (const [k, v] of new URLSearchParams(text)) {
    const prev = form[k];
    form[k] = prev === undefined ? v : [...(Array.isArray(prev) ? prev : [prev]), v];
  }
  return form;
}
