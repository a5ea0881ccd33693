import fs from 'node:fs';
import path from 'node:path';
import test from 'ava';
import { DomainError, ERROR_CODE_NAMES, ERROR_CODES, tooManyRequests, validationFailed } from '../../src/domain/errors.ts';
import { v1Routes } from '../../src/api/v1/index.ts';
import { buildOpenApi } from '../../src/http/openapi.ts';

const SRC = path.resolve(import.meta.dirname, '../../src');

test('every code is a client or server error status with a title, and codes are snake_case', (t) => {
  for (const code of ERROR_CODE_NAMES) {
    const { status, title } = ERROR_CODES[code];
    t.true(status >= 400 && status < 600, code);
    t.true(title.length > 0, code);
    t.regex(code, /^[a-z]+(_[a-z]+)*$/);
  }
});

test('an error takes its status and title from the catalogue; extras ride along', (t) => {
  const busy = tooManyRequests('query_busy', 'One at a time.', 0.2);
  t.like(busy, { status: 429, code: 'query_busy', title: 'Too many requests', message: 'One at a time.' });
  t.deepEqual(busy.headers, { 'Retry-After': '1' });
  t.deepEqual(validationFailed([{ path: 'name', message: 'is required' }]).errors, [{ path: 'name', message: 'is required' }]);
});

test("errors are made by the catalogue's factories only: no `new DomainError(` elsewhere in src/", (t) => {
  const offenders = fs
    .readdirSync(SRC, { recursive: true })
    .map(String)
    .filter((f) => /\.tsx?$/.test(f) && f !== path.join('domain', 'errors.ts'))
    .filter((f) => fs.readFileSync(path.join(SRC, f), 'utf8').includes('new DomainError('));
  t.deepEqual(offenders, []);
});

test('the OpenAPI document lists every code, with its status and title', (t) => {
  const doc = buildOpenApi(v1Routes, 'http://localhost:3000') as any;
  const code = doc.components.schemas.Problem.properties.code;
  t.deepEqual(code.enum, ERROR_CODE_NAMES);
  for (const name of ERROR_CODE_NAMES)
    t.true(code.description.includes(`\`${name}\`: ${ERROR_CODES[name].status} ${ERROR_CODES[name].title}`), name);
  t.true(new DomainError('not_found') instanceof Error);
});
