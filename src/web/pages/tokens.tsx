import type { createToken, listTokens } from '../../domain/auth/api-tokens.ts';
import type { FieldError } from '../../domain/errors.ts';
import { Layout, type PageFrame } from '../layout.tsx';

const day = (iso: string | null) => (iso ? iso.slice(0, 10) : 'never');

/**
 * GET /account/tokens: the caller's API tokens. A new token's secret is shown on the page that created
 * it and never again (the database keeps only its hash).
 */
export function TokensPage(props: {
  frame: PageFrame;
  tokens: Awaited<ReturnType<typeof listTokens>>;
  created: Awaited<ReturnType<typeof createToken>> | null;
  errors: FieldError[];
}) {
  const { created, tokens, errors } = props;
  return (
    <Layout frame={props.frame} title="API tokens">
      <h1>API tokens</h1>
      <p class="muted">
        A token lets a program (a script, <code>ckanapi</code>, an AI agent through MCP) act as you: send it as{' '}
        <code>Authorization: Bearer …</code>.
      </p>
      {created && (
        <div class="notice" role="status">
          <p>
            <strong>{`Token “${created.name}” created.`}</strong> Copy it now: it will not be shown again.
          </p>
          <p>
            <label for="new-token">Your new token</label>
            <input id="new-token" readOnly value={created.token} class="token" />
          </p>
        </div>
      )}
      <form method="post" action="/account/tokens" class="form narrow">
        <h2>New token</h2>
        <input type="hidden" name="_csrf" value={props.frame.csrf} />
        {errors.length > 0 && (
          <p class="error" role="alert" id="token-error">
            {errors.map((e) => `${e.path}: ${e.message}`).join('; ')}
          </p>
        )}
        <label for="token-name">Name</label>
        <input id="token-name" name="name" required maxLength={200} aria-describedby={errors.length ? 'token-error' : undefined} />
        <label for="token-days">Valid for</label>
        <select id="token-days" name="expiresInDays">
          {[30, 90, 180, 365].map((days) => (
            <option value={String(days)} selected={days === 90}>{`${days} days`}</option>
          ))}
        </select>
        <button type="submit">Create token</button>
      </form>
      <h2>Your tokens</h2>
      {tokens.count === 0 ? (
        <p class="muted">None.</p>
      ) : (
        <table class="data">
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Created</th>
              <th scope="col">Expires</th>
              <th scope="col">Last used</th>
              <th scope="col">
                <span class="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {tokens.results.map((token) => (
              <tr>
                <td>{token.name}</td>
                <td>{day(token.createdAt)}</td>
                <td>{day(token.expiresAt)}</td>
                <td>{day(token.lastUsedAt)}</td>
                <td>
                  <form method="post" action={`/account/tokens/${encodeURIComponent(token.id)}/revoke`} class="inline">
                    <input type="hidden" name="_csrf" value={props.frame.csrf} />
                    <button type="submit" class="link" aria-label={`Revoke ${token.name}`}>
                      Revoke
                    </button>
                  </form>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </Layout>
  );
}
