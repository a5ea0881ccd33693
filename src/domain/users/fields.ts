import { z } from 'zod';

/** The rules for account fields, shared by the API, the CLI and the ALMANAC_ADMIN_* settings. */
export const username = z
  .string()
  .regex(/^[a-z0-9][a-z0-9_.-]{1,99}$/, 'must be 2–100 lowercase letters, digits, ., - or _, starting with a letter or digit');

export const password = z.string().min(8, 'must be at least 8 characters').max(256, 'must be at most 256 characters');
/** An address as the document's `format: email` reads it (RFC 5321: at most 64 characters before the @). */
export const email = z
  .email('must be an email address')
  .max(320)
  .refine((address) => address.lastIndexOf('@') <= 64, 'must have at most 64 characters before the @');
export const displayName = z.string().trim().min(1).max(200);

export const NewUserFields = z.object({
  username,
  email,
  password,
  displayName: displayName.optional(),
});
