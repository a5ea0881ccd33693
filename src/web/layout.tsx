import type { ComponentChildren } from 'preact';

export interface PageFrame {
  siteName: string;
  /** The caller's name when logged in. */
  user: string | null;
  csrf: string;
  /** Whether a visitor may create an account. */
  registration: boolean;
  /** The query in the header's search box. */
  q?: string;
}

/** Every page's frame: landmarks, a skip link, the search box, who is logged in, and a JSON twin when there is one. */
export function Layout(props: { frame: PageFrame; title: string; json?: string; head?: ComponentChildren; children: ComponentChildren }) {
  const { frame } = props;
  return (
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="color-scheme" content="light dark" />
        <title>{`${props.title} · ${frame.siteName}`}</title>
        <link rel="stylesheet" href="/static/app.css" />
        {/* No icon yet: this keeps browsers from asking for /favicon.ico on every page. */}
        <link rel="icon" href="data:," />
        {props.json && <link rel="alternate" type="application/json" href={props.json} />}
        {props.head}
      </head>
      <body>
        <a class="skip" href="#main">
          Skip to content
        </a>
        <header class="site">
          <a class="brand" href="/">
            {frame.siteName}
          </a>
          <form role="search" action="/dataset" method="get" class="header-search">
            <label for="header-q" class="visually-hidden">
              Search datasets
            </label>
            <input id="header-q" type="search" name="q" value={frame.q ?? ''} placeholder="Search datasets" />
            <button type="submit">Search</button>
          </form>
          <nav aria-label="Site">
            <ul>
              <li>
                <a href="/dataset">Datasets</a>
              </li>
              <li>
                <a href="/organization">Organizations</a>
              </li>
              <li>
                <a href="/group">Categories</a>
              </li>
              {frame.user && (
                <>
                  <li>
                    <a href="/dataset/new">New dataset</a>
                  </li>
                  <li>
                    <a href="/account/tokens">API tokens</a>
                  </li>
                </>
              )}
              {frame.user ? (
                <li>
                  <form action="/logout" method="post" class="inline">
                    <input type="hidden" name="_csrf" value={frame.csrf} />
                    <button type="submit" class="link">{`Log out ${frame.user}`}</button>
                  </form>
                </li>
              ) : (
                <>
                  <li>
                    <a href="/login">Log in</a>
                  </li>
                  {frame.registration && (
                    <li>
                      <a href="/register">Register</a>
                    </li>
                  )}
                </>
              )}
            </ul>
          </nav>
        </header>
        <main id="main">{props.children}</main>
        <footer class="site">
          {props.json && (
            <a href={props.json} rel="alternate" type="application/json">
              This page as JSON
            </a>
          )}{' '}
          <a href="/api/docs">API</a> · <a href="/catalog">DCAT catalog</a> · <a href="/data.json">data.json</a>
        </footer>
      </body>
    </html>
  );
}
