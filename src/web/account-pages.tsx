import type Router from '@koa/router';
import type { Context } from 'koa';
import { RegisterBody } from '../api/v1/auth/schema.ts';
import { CreateTokenBody } from '../api/v1/tokens/index.ts';
import { login } from '../domain/auth/login.ts';
import { createToken, listTokens, revokeToken } from '../domain/auth/api-tokens.ts';
import { DomainError, notFound, validationFailed, type FieldError } from '../domain/errors.ts';
import { registerUser } from '../domain/users/users.ts';
import { setSessionCookie } from '../http/session-cookie.ts';
import { fieldErrors } from '../http/validate.ts';
import { checkCsrf } from './csrf.ts';
import { readForm } from './form.ts';
import { actorOf, domainOf, frameOf, loggedIn, mountPage } from './page-context.tsx';
import { RegisterPage, type RegisterValues } from './pages/register.tsx';
import { TokensPage } from './pages/tokens.tsx';
import { sendPage } from './render.ts';
import type { DomainServices } from '../domain/context.ts';

const TOKENS_SHOWN = { offset: 0, limit: 100 };

/** Registration (while the site allows it) and the caller's API tokens. */
export function mountAccountPages(router: Router, services: DomainServices) {
  const showTokens = async (ctx: Context, created: Awaited<ReturnType<typeof createToken>> | null, errors: FieldError[], status = 200) => {
    const [frame, tokens] = await Promise.all([frameOf(ctx, services), listTokens(domainOf(ctx), actorOf(ctx), TOKENS_SHOWN)]);
    sendPage(ctx, <TokensPage frame={frame} tokens={tokens} created={created} errors={errors} />, status);
  };

  mountPage(router, services, 'GET /account/tokens', async (ctx) => {
    if (loggedIn(ctx)) await showTokens(ctx, null, []);
  });

  mountPage(router, services, 'POST /account/tokens', async (ctx) => {
    const form = await readForm(ctx);
    checkCsrf(ctx, form);
    if (!loggedIn(ctx)) return;
    const parsed = CreateTokenBody.safeParse({ name: form.get('name') ?? '', expiresInDays: Number(form.get('expiresInDays') ?? 90) });
    if (!parsed.success) return showTokens(ctx, null, fieldErrors(parsed.error), 422);
    // The secret is on this page and nowhere else: the answer is not stored (no-store) and not redirected.
    await showTokens(ctx, await createToken(domainOf(ctx), actorOf(ctx), parsed.data), [], 201);
  });

  mountPage(router, services, 'POST /account/tokens/:id/revoke', async (ctx) => {
    checkCsrf(ctx, await readForm(ctx));
    if (!loggedIn(ctx)) return;
    await revokeToken(domainOf(ctx), actorOf(ctx), ctx.params.id!);
    ctx.redirect('/account/tokens');
  });

  const registrationOpen = () => {
    if (!services.config.site.registrationEnabled) throw notFound('Registration');
  };

  mountPage(router, services, 'GET /register', async (ctx) => {
    registrationOpen();
    sendPage(ctx, <RegisterPage frame={await frameOf(ctx, services)} values={{ username: '', email: '', displayName: '' }} errors={[]} />);
  });

  mountPage(router, services, 'POST /register', async (ctx) => {
    registrationOpen();
    const form = await readForm(ctx);
    checkCsrf(ctx, form);
    const values: RegisterValues = {
      username: form.get('username')?.trim() ?? '',
      email: form.get('email')?.trim() ?? '',
      displayName: form.get('displayName')?.trim() ?? '',
    };
    const password = form.get('password') ?? '';
    try {
      const parsed = RegisterBody.safeParse({ ...values, displayName: values.displayName || undefined, password });
      if (!parsed.success) throw validationFailed(fieldErrors(parsed.error), 'Some fields need attention.');
      await registerUser(domainOf(ctx), parsed.data, ctx.ip);
      const { session } = await login(domainOf(ctx), { username: parsed.data.username, password }, ctx.ip);
      setSessionCookie(ctx, session.secret, session.expiresAt);
      ctx.redirect('/');
    } catch (err) {
      if (!(err instanceof DomainError) || err.status >= 500) throw err;
      const errors = err.errors?.length ? err.errors : [{ path: err.code === 'conflict' ? 'username' : '(form)', message: err.message }];
      sendPage(ctx, <RegisterPage frame={await frameOf(ctx, services)} values={values} errors={errors} />, err.status);
    }
  });
}
