import { Layout, type PageFrame } from '../layout.tsx';

/** GET /login, and the same form again with the error after a failed attempt. */
export function LoginPage(props: { frame: PageFrame; error?: string; username?: string; next: string }) {
  return (
    <Layout frame={props.frame} title="Log in">
      <h1>Log in</h1>
      <form method="post" action="/login" class="form narrow">
        <input type="hidden" name="_csrf" value={props.frame.csrf} />
        <input type="hidden" name="next" value={props.next} />
        {props.error && (
          <p class="error" role="alert" id="login-error">
            {props.error}
          </p>
        )}
        <label for="username">Username or email</label>
        <input
          id="username"
          name="username"
          autocomplete="username"
          required
          value={props.username ?? ''}
          aria-describedby={props.error ? 'login-error' : undefined}
        />
        <label for="password">Password</label>
        <input id="password" name="password" type="password" autocomplete="current-password" required />
        <button type="submit">Log in</button>
      </form>
    </Layout>
  );
}
