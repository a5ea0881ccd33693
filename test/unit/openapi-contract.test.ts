/**
 * The OpenAPI document tells the truth about statuses and constraints (issue 16): what each route can
 * answer is derived from what it declares, and the constraints the validators enforce are in the schemas.
 */
import { Validator } from '@seriousme/openapi-schema-validator';
import test from 'ava';
import { v1Routes } from '../../src/api/v1/index.ts';
import { buildOpenApi } from '../../src/http/openapi.ts';
import { paging } from '../../src/http/schemas.ts';

const doc = buildOpenApi(v1Routes, 'http://localhost:3000') as any;
const operations = Object.entries(doc.paths).flatMap(([path, methods]) =>
  Object.entries(methods as Record<string, any>).map(([method, op]) => ({ key: `${method.toUpperCase()} ${path}`, method, op })),
);
const schemaOf = (ref: any) => (ref.$ref ? doc.components.schemas[ref.$ref.split('/').pop()] : ref);

test('the document is valid OpenAPI 3.1', async (t) => {
  const validator = new Validator();
  const result = await validator.validate(doc);
  t.true(result.valid, JSON.stringify(result.errors));
});

test('every operation declares 401 (a bad API token is refused everywhere); those for users 403 as well', (t) => {
  for (const { key, op } of operations) {
    t.truthy(op.responses['401'], key);
    const route = v1Routes.find((r) => `${r.method.toUpperCase()} /api/v1${r.path}` === key)!;
    if (route.access !== 'public') t.truthy(op.responses['403'], key);
  }
});

test('an operation with a JSON body declares 400, 413, 415 and 422; with parameters 400; with a path 404', (t) => {
  for (const { key, method, op } of operations) {
    if (op.requestBody?.content['application/json']) {
      for (const status of ['400', '413', '415', '422']) t.truthy(op.responses[status], `${key} ${status}`);
    }
    if (method !== 'get') t.truthy(op.responses['403'], `${key}: the cross-origin refusal`);
    if (op.parameters?.some((p: { in: string }) => p.in === 'query')) t.truthy(op.responses['400'], key);
    if (op.parameters?.some((p: { in: string }) => p.in === 'path')) t.truthy(op.responses['404'], key);
  }
});

test('a problem response names the codes of its status, and points at the Problem schema', (t) => {
  const login = doc.paths['/api/v1/auth/login'].post.responses;
  t.regex(login['401'].description, /`invalid_credentials`/);
  t.regex(login['429'].description, /`login_rate_limited`/);
  t.deepEqual(login['429'].content['application/problem+json'].schema, { $ref: '#/components/schemas/Problem' });
  t.truthy(doc.paths['/api/v1/packages'].post.responses['409']);
  t.truthy(doc.paths['/api/v1/organizations/{nameOrId}/members'].post.responses['201'], 'a member added is 201, changed 200');
});

test('limit is 1 to 100, as the validator says', (t) => {
  t.false(paging.limit.safeParse('0').success);
  const limit = doc.paths['/api/v1/packages'].get.parameters.find((p: { name: string }) => p.name === 'limit');
  t.like(limit.schema, { minimum: 1, maximum: 100, default: 20 });
});

test('login takes exactly one of username and email', (t) => {
  const body = doc.paths['/api/v1/auth/login'].post.requestBody.content['application/json'].schema;
  t.deepEqual(body.oneOf, [{ required: ['username'] }, { required: ['email'] }]);
  t.deepEqual(body.required, ['password']);
});

test('a link resource requires its url, an upload has none', (t) => {
  const input = schemaOf(doc.paths['/api/v1/packages/{id}/resources'].post.requestBody.content['application/json'].schema);
  const [link, upload] = input.oneOf;
  t.like(link, { required: ['url'], properties: { urlType: { const: 'link', default: 'link' } } });
  t.like(upload, { required: ['urlType'], properties: { urlType: { const: 'upload' }, url: { type: 'null' } } });
});

test('input strings refuse NUL, as the routes do', (t) => {
  const q = doc.paths['/api/v1/packages'].get.parameters.find((p: { name: string }) => p.name === 'q');
  t.false(new RegExp(q.schema.pattern).test('a\0b'));
  t.true(new RegExp(q.schema.pattern).test('rivers'));
  const register = schemaOf(doc.paths['/api/v1/auth/register'].post.requestBody.content['application/json'].schema);
  for (const [name, field] of Object.entries(register.properties as Record<string, { pattern?: string }>)) {
    t.truthy(field.pattern, name);
    t.false(new RegExp(field.pattern!).test('a\0b'), name);
  }
});
