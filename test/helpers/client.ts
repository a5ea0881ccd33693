/** A small fetch wrapper for black-box tests: JSON in, status + headers + parsed body out. */
export interface Auth {
  token?: string;
  cookie?: string;
  /** Origin header to send; cookie-authenticated writes get this site's origin unless told otherwise. */
  origin?: string | null;
  headers?: Record<string, string>;
}

/** A user registered through the API by `ApiClient.newUser`, with a session cookie and an API token. */
export interface TestUser {
  id: string;
  username: string;
  password: string;
  cookie: string;
  token: string;
}

/** No credentials at all. */
export const anonymous: Auth = {};
/** Calls as `user`, with their API token. */
export const as = (user: { token: string }): Auth => ({ token: user.token });

export interface Reply {
  status: number;
  headers: Headers;
  body: any;
  text: string;
}

export class ApiClient {
  constructor(readonly baseUrl: string) {}

  async request(method: string, path: string, body?: unknown, auth: Auth = {}): Promise<Reply> {
    const headers: Record<string, string> = { ...auth.headers };
    if (auth.token) headers.Authorization = `Bearer ${auth.token}`;
    if (auth.cookie) headers.Cookie = auth.cookie;
    const origin = auth.origin === undefined ? (auth.cookie ? this.baseUrl : undefined) : auth.origin;
    if (origin) headers.Origin = origin;
    let payload: string | undefined;
    if (body !== undefined) {
      payload = typeof body === 'string' ? body : JSON.stringify(body);
      headers['Content-Type'] ??= 'application/json';
    }
    const res = await fetch(this.baseUrl + path, { method, headers, body: payload, redirect: 'manual' });
    const text = await res.text();
    let parsed: unknown;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      parsed = undefined;
    }
    return { status: res.status, headers: res.headers, body: parsed, text };
  }

  get = (path: string, auth?: Auth) => this.request('GET', path, undefined, auth);
  post = (path: string, body?: unknown, auth?: Auth) => this.request('POST', path, body, auth);
  put = (path: string, body?: unknown, auth?: Auth) => this.request('PUT', path, body, auth);
  patch = (path: string, body?: unknown, auth?: Auth) => this.request('PATCH', path, body, auth);
  delete = (path: string, auth?: Auth) => this.request('DELETE', path, undefined, auth);

  /** Logs in and returns the session cookie (`name=value`) with the reply. */
  async login(username: string, password: string, extra: Auth = {}) {
    const reply = await this.post('/api/v1/auth/login', { username, password }, extra);
    const setCookie = reply.headers.get('set-cookie') ?? '';
    return { ...reply, cookie: setCookie.split(';')[0] };
  }

  /** Registers a user and returns an API token for them. */
  async newUser(username: string, password = 'password-123'): Promise<TestUser> {
    const reg = await this.post('/api/v1/auth/register', { username, email: `${username}@example.org`, password });
    if (reg.status !== 201) throw new Error(`register ${username}: ${reg.status} ${reg.text}`);
    const { cookie } = await this.login(username, password);
    const token = await this.post('/api/v1/api-tokens', { name: 'test' }, { cookie });
    return { id: reg.body.id as string, username, password, cookie, token: token.body.token as string };
  }
}
