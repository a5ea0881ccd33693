import { z } from 'zod';
import { displayName, email, password, username } from '../../../http/schemas.ts';

export const RegisterBody = z.strictObject({
  username,
  email,
  password,
  displayName: displayName.optional(),
});

export const LoginBody = z
  .strictObject({
    username: z.string().min(1).max(320).optional(),
    email: z.string().min(1).max(320).optional(),
    password: z.string().min(1).max(256),
  })
  .refine((b) => (b.username === undefined) !== (b.email === undefined), {
    message: 'send either username or email',
    path: ['username'],
  })
  // The refinement, which zod cannot render, as JSON Schema: exactly one of the two.
  .meta({ override: (ctx) => void (ctx.jsonSchema.oneOf = [{ required: ['username'] }, { required: ['email'] }]) });
