import { readFileSync } from 'node:fs';
import Router from '@koa/router';
import { login } from '../domain/auth/login.ts';
import { closeSession } from '../domain/auth/sessions.ts';
import { mayEditDataset } from '../domain/datasets/access.ts';
import { getDataset } from '../domain/datasets/lifecycle.ts';
import { listDatasets } from '../domain/datasets/list.ts';
import { DomainError } from '../domain/errors.ts';
import { getGroup, listGroups } from '../domain/groups/groups.ts';
import { schemaOrgScriptText } from '../feeds/schema-org.ts';
import { sessionCookieName, setSessionCookie } from '../http/session-cookie.ts';
import { checkCsrf } from './csrf.ts';
import { readForm } from './form.ts';
import { renderMarkdown } from './markdown.ts';
import { DatasetPageView } from './pages/dataset.tsx';
import { HistoryPage } from './pages/history.tsx';
import { datasetActivity } from '../domain/activity/history.ts';
import { GroupPageView, GroupsPage } from './pages/groups.tsx';
import { HomePage } from './pages/home.tsx';
import { LoginPage } from './pages/login.tsx';
import { SearchPage, searchFilters, searchStateOf } from './pages/search.tsx';
import { actorOf, domainOf, frameOf, mountPage } from './page-context.tsx';
import { mountAccountPages } from './account-pages.tsx';
import { mountPublishPages } from './publish-pages.tsx';
import { mountResourcePages } from './resource-pages.tsx';
import { contentSecurityPolicy, sendPage } from './render.ts';
import type { DomainServices } from '../domain/context.ts';

/** The pages' own files, read once: `/static/<name>`. */
const ASSETS = new Map<string, { type: string; body: string }>(
  (
    [
      ['app.css', 'text/css; charset=utf-8'],
      ['upload.js', 'text/javascript; charset=utf-8'],
    ] as const
  ).map(([name, type]) => [name, { type, body: readFileSync(new URL(`./assets/${name}`, import.meta.url), 'utf8') }]),
);
const PAGE_SIZE = 20;

/** A local path to go back to after logging in; anything else (another site, `//host`) goes home. */
const localPath = (value: string | null | undefined) => (value && /^\/(?!\/)[^\s\\]*$/.test(value) ? value : '/');

/**
 * The web catalog: server-rendered pages on the same domain functions, policies and presenters as the
 * REST API, at CKAN's paths (`/dataset`, `/dataset/{name}`, `/organization/{name}`, `/group/{name}`), so
 * links into a portal that moved here keep working. Mounted after the feeds, which answer RDF at the
 * dataset's IRI to clients that ask for it.
 */
export function webRouter(services: DomainServices) {
  const router = new Router();

  const storage = services.config.storage;
  const policy = contentSecurityPolicy(storage.mode === 's3' ? new URL(storage.endpoint).origin : null);
  router.use((ctx, next) => {
    ctx.state.contentSecurityPolicy = policy;
    return next();
  });

  mountPage(router, services, 'GET /static/:file', async (ctx) => {
    const asset = ASSETS.get(ctx.params.file!);
    if (!asset) return;
    ctx.type = asset.type;
    ctx.set('Cache-Control', 'public, max-age=300');
    ctx.body = asset.body;
  });

  mountPage(router, services, 'GET /', async (ctx) => {
    const domain = domainOf(ctx);
    const actor = actorOf(ctx);
    const groupPage = { offset: 0, limit: 12 };
    const [frame, recent, organizations, categories] = await Promise.all([
      frameOf(ctx, services),
      listDatasets(domain, actor, { offset: 0, limit: 6, private: true }),
      listGroups(domain, actor, 'organization', {}, groupPage),
      listGroups(domain, actor, 'category', {}, groupPage),
    ]);
    sendPage(ctx, <HomePage frame={frame} recent={recent} organizations={organizations} categories={categories} />);
  });

  mountPage(router, services, 'GET /dataset', async (ctx) => {
    const state = searchStateOf(new URLSearchParams(ctx.querystring), PAGE_SIZE);
    const [frame, results] = await Promise.all([
      frameOf(ctx, services),
      listDatasets(domainOf(ctx), actorOf(ctx), {
        q: state.q || undefined,
        offset: state.offset,
        limit: PAGE_SIZE,
        private: true,
        include_facets: true,
        facet_limit: 10,
        ...searchFilters(state),
      }),
    ]);
    sendPage(ctx, <SearchPage frame={frame} state={state} page={results} />);
  });

  mountPublishPages(router, services);

  mountPage(router, services, 'GET /dataset/:name', async (ctx) => {
    const [frame, dataset, editable] = await Promise.all([
      frameOf(ctx, services),
      getDataset(domainOf(ctx), actorOf(ctx), ctx.params.name!, { draft: false }),
      mayEditDataset(domainOf(ctx), actorOf(ctx), ctx.params.name!),
    ]);
    // The feeds describe public, active datasets only; a private one's page carries none of their links.
    const site = { publicUrl: services.config.http.publicUrl, siteName: services.config.site.name };
    const jsonLd =
      !dataset.private && dataset.state === 'active' ? schemaOrgScriptText(site, { ...dataset, resources: dataset.resources ?? [] }) : null;
    const notesHtml = dataset.notes ? renderMarkdown(dataset.notes) : null;
    sendPage(ctx, <DatasetPageView frame={frame} dataset={dataset} notesHtml={notesHtml} jsonLd={jsonLd} editable={editable} />);
  });

  mountPage(router, services, 'GET /dataset/:name/history', async (ctx) => {
    const [frame, dataset, history] = await Promise.all([
      frameOf(ctx, services),
      getDataset(domainOf(ctx), actorOf(ctx), ctx.params.name!, { draft: false }),
      datasetActivity(domainOf(ctx), actorOf(ctx), ctx.params.name!, { offset: 0, limit: 100 }),
    ]);
    sendPage(ctx, <HistoryPage frame={frame} dataset={dataset} history={history} />);
  });

  for (const [path, kind, groupKind, filter] of [
    ['/organization', 'organization', 'organization', 'organization'],
    ['/group', 'group', 'category', 'groups'],
  ] as const) {
    mountPage(router, services, `GET ${path}`, async (ctx) => {
      const [frame, groups] = await Promise.all([
        frameOf(ctx, services),
        listGroups(domainOf(ctx), actorOf(ctx), groupKind, {}, { offset: 0, limit: 100 }),
      ]);
      sendPage(ctx, <GroupsPage frame={frame} kind={kind} groups={groups} />);
    });
    mountPage(router, services, `GET ${path}/:name`, async (ctx) => {
      const domain = domainOf(ctx);
      const actor = actorOf(ctx);
      const group = await getGroup(domain, actor, groupKind, ctx.params.name!);
      const [frame, datasets] = await Promise.all([
        frameOf(ctx, services),
        listDatasets(domain, actor, { offset: 0, limit: PAGE_SIZE, private: true, [filter]: [group.name] }),
      ]);
      sendPage(ctx, <GroupPageView frame={frame} kind={kind} group={group} datasets={datasets} filter={filter} />);
    });
  }

  mountResourcePages(router, services);
  mountAccountPages(router, services);

  mountPage(router, services, 'GET /login', async (ctx) => {
    sendPage(ctx, <LoginPage frame={await frameOf(ctx, services)} next={localPath(ctx.query.next as string | undefined)} />);
  });

  mountPage(router, services, 'POST /login', async (ctx) => {
    const form = await readForm(ctx);
    checkCsrf(ctx, form);
    const username = form.get('username') ?? '';
    const next = localPath(form.get('next'));
    try {
      const password = form.get('password') ?? '';
      const credentials = username.includes('@') ? { email: username, password } : { username, password };
      const { session } = await login(domainOf(ctx), credentials, ctx.ip);
      setSessionCookie(ctx, session.secret, session.expiresAt);
      ctx.redirect(next);
    } catch (err) {
      if (!(err instanceof DomainError) || !['invalid_credentials', 'login_rate_limited'].includes(err.code)) throw err;
      for (const [name, value] of Object.entries(err.headers ?? {})) ctx.set(name, value);
      sendPage(ctx, <LoginPage frame={await frameOf(ctx, services)} error={err.message} username={username} next={next} />, err.status);
    }
  });

  mountPage(router, services, 'POST /logout', async (ctx) => {
    checkCsrf(ctx, await readForm(ctx));
    const secret = ctx.cookies.get(sessionCookieName(ctx));
    if (secret) await closeSession(domainOf(ctx), secret);
    setSessionCookie(ctx, null);
    ctx.redirect('/');
  });

  return router;
}
