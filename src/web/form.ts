import type { Context } from 'koa';
import { payloadTooLarge, unsupportedMediaType } from '../domain/errors.ts';
import { unstorableAt, unstorableInput } from '../domain/unstorable-text.ts';

/** A page's forms are small: a login, a dataset's fields. */
const MAX_FORM_BYTES = 256 * 1024;

/** The urlencoded body of a page's form; text nothing can store is the same 400 as in a page's query (the audited runner). */
export async function readForm(ctx: Context): Promise<URLSearchParams> {
  if (!ctx.is('application/x-www-form-urlencoded')) throw unsupportedMediaType('Send the form as application/x-www-form-urlencoded.');
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of ctx.req) {
    size += (chunk as Buffer).length;
    if (size > MAX_FORM_BYTES) throw payloadTooLarge(`A form may send at most ${MAX_FORM_BYTES / 1024} KB.`);
    chunks.push(chunk as Buffer);
  }
  const form = new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
  for (const [key, value] of form) {
    const unstorable = unstorableAt({ [key]: value });
    if (unstorable) throw unstorableInput(unstorable);
  }
  return form;
}
