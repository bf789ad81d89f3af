import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { openApiDocument } from '../../server/api/index';
import { CURRENT_VERSION } from '../../server/http/versions';
import { incompatibleChanges, RELEASE_ORIGIN } from '../openapi/compatibility';

// The CI check of the contract (npm run lint:openapi runs check-compatible.ts): it must find
// every kind of incompatible change, and let compatible ones through.

type Doc = Record<string, any>;
const released = JSON.parse(readFileSync(new URL(`../openapi/released/${CURRENT_VERSION}.json`, import.meta.url), 'utf8')) as Doc;
const productBody = (d: Doc) => d.paths['/product/'].post.requestBody.content['application/json'].schema as Doc;
/**
 * The released document with only the operations the cases below change (and those showing
 * the schemas they change): each case is about the check, and comparing all 58 paths took
 * half a second a case. The whole document is compared in the first test and by
 * `npm run lint:openapi`.
 */
const CASE_PATHS = ['/product/', '/product/{id}/', '/transaction/', '/balance_transaction/'];
const caseDocument: Doc = { ...released, paths: Object.fromEntries(CASE_PATHS.map((path) => [path, released.paths[path]])) };
const changed = (change: (d: Doc) => void) => {
  const copy = structuredClone(caseDocument);
  change(copy);
  return incompatibleChanges(caseDocument, copy);
};

describe('the compatibility check of the OpenAPI document', () => {
  it('finds the current document compatible with the released one', () => {
    expect(incompatibleChanges(released, JSON.parse(JSON.stringify(openApiDocument(RELEASE_ORIGIN))))).toEqual([]);
  });

  it.each([
    ['an operation removed', (d: Doc) => delete d.paths['/product/{id}/'].delete, 'remove paths./product/{id}/.delete'],
    ['an answer field removed', (d: Doc) => delete d.components.schemas.Transaction.properties.note, '.properties.note'],
    ['an enum value removed', (d: Doc) => d.components.parameters['Payment-Service-Version'].schema.enum.pop(), 'schema.enum'],
    ['a new required request field', (d: Doc) => productBody(d).required.push('description'), 'requestBody'],
    ['an answer field no longer always sent', (d: Doc) => d.components.schemas.Transaction.required.pop(), 'required'],
    ['a type narrowed', (d: Doc) => (productBody(d).properties.price.type = 'integer'), 'properties.price.type'],
    ['a limit narrowed', (d: Doc) => (productBody(d).properties.price.maximum = 5), 'properties.price.maximum'],
    ['a new required parameter', (d: Doc) => d.paths['/transaction/'].get.parameters.push({ name: 'x', in: 'query', required: true, schema: { type: 'string' } }), 'parameters'],
  ])('fails on %s', (_what, change, where) => {
    const changes = changed(change);
    expect(changes.length).toBeGreaterThan(0);
    expect(changes.join('\n')).toContain(where);
  });

  it('lets compatible changes through: an optional request field, a new answer field (also always sent), a new enum value in an answer, a new version, a new operation, the server', () => {
    expect(
      changed((d) => {
        d.components.schemas.Transaction.properties.always = { type: 'boolean' };
        d.components.schemas.Transaction.required.push('always');
        d.components.schemas.BalanceTransaction.properties.type.enum.push('later');
        productBody(d).properties.note = { type: 'string' };
        d.components.schemas.Transaction.properties.later = { type: 'string' };
        d.components.parameters['Payment-Service-Version'].schema.enum.push('2099-01-01');
        d.paths['/later/'] = { get: { operationId: 'later', responses: { 200: { description: 'ok' } } } };
        d.servers = [{ url: 'https://elsewhere.example/v1' }];
      }),
    ).toEqual([]);
  });
});
