import { z } from 'zod';
import type { FieldDescriptor, FieldTable } from '../../../domain/datasets/field-table.ts';
import { email } from '../../../http/schemas.ts';

/** The zod schemas of the field tables' kinds: what a body may send, and what a record says. */

export const text = (max: number) => z.string().trim().max(max);

const inputOf = {
  text: (f: FieldDescriptor) => (f.min ? text(f.max!).min(f.min) : text(f.max!)),
  email: () => email,
  httpUrl: (f: FieldDescriptor) => z.url({ protocol: /^https?$/, message: 'must be an http(s) URL' }).max(f.max!),
  flag: () => z.boolean(),
};

const outputOf = {
  text: () => z.string().nullable(),
  email: () => z.string().nullable(),
  httpUrl: () => z.string().nullable(),
  flag: () => z.boolean(),
};

type Kinds<T extends FieldTable> = { [K in keyof T]: T[K]['kind'] };

/** One field as a body must send it when it is required. */
export const fieldInput = <F extends FieldDescriptor>(f: F) => inputOf[f.kind](f) as ReturnType<(typeof inputOf)[F['kind']]>;

/** The writable fields of a body: each may be absent (left alone) or null (cleared). */
export const inputShape = <T extends FieldTable>(table: T) =>
  Object.fromEntries(Object.entries(table).map(([k, f]) => [k, inputOf[f.kind](f).nullish()])) as {
    -readonly [K in keyof T]: z.ZodOptional<z.ZodNullable<ReturnType<(typeof inputOf)[Kinds<T>[K]]>>>;
  };

/** The fields of a record: every one present, null when unset (a flag false). */
export const outputShape = <T extends FieldTable>(table: T) =>
  Object.fromEntries(Object.entries(table).map(([k, f]) => [k, outputOf[f.kind]()])) as {
    -readonly [K in keyof T]: ReturnType<(typeof outputOf)[Kinds<T>[K]]>;
  };

type SchemaOrgKey<F> = F extends { feeds: { schemaOrg: infer S extends string } } ? S : never;

/** The fields schema.org JSON-LD gives as they are (src/feeds/schema-org.ts), each only when set. */
export const schemaOrgShape = <T extends FieldTable>(table: T) =>
  Object.fromEntries(Object.values(table).flatMap((f) => (f.feeds?.schemaOrg ? [[f.feeds.schemaOrg, z.string().optional()]] : []))) as {
    [K in keyof T as SchemaOrgKey<T[K]>]: z.ZodOptional<z.ZodString>;
  };
