import type { FieldError } from '../../domain/errors.ts';
import { Layout, type PageFrame } from '../layout.tsx';

export interface RegisterValues {
  username: string;
  email: string;
  displayName: string;
}

/** GET /register, while the site allows registration. */
export function RegisterPage(props: { frame: PageFrame; values: RegisterValues; errors: FieldError[] }) {
  const { values, errors } = props;
  const error = (field: string) =>
    errors
      .filter((e) => e.path === field)
      .map((e) => e.message)
      .join('; ');
  const field = (id: keyof RegisterValues | 'password', label: string, attrs: Record<string, string | boolean>) => (
    <>
      <label for={id}>{label}</label>
      <input id={id} name={id} {...attrs} aria-describedby={error(id) ? `${id}-error` : undefined} />
      {error(id) && (
        <p class="field-error" id={`${id}-error`}>
          {error(id)}
        </p>
      )}
    </>
  );
  return (
    <Layout frame={props.frame} title="Create an account">
      <h1>Create an account</h1>
      <form method="post" action="/register" class="form narrow">
        <input type="hidden" name="_csrf" value={props.frame.csrf} />
        {errors.some((e) => !['username', 'email', 'password', 'displayName'].includes(e.path)) && (
          <p class="error" role="alert">
            {errors.map((e) => e.message).join('; ')}
          </p>
        )}
        {field('username', 'Username', { required: true, autocomplete: 'username', value: values.username })}
        {field('email', 'Email', { required: true, type: 'email', autocomplete: 'email', value: values.email })}
        {field('displayName', 'Display name (optional)', { autocomplete: 'name', value: values.displayName })}
        {field('password', 'Password (at least 8 characters)', { required: true, type: 'password', autocomplete: 'new-password' })}
        <button type="submit">Create account</button>
      </form>
      <p>
        Already have one? <a href="/login">Log in</a>
      </p>
    </Layout>
  );
}
