import { describe, expect, it } from 'vitest';
import { contractProblems } from './contract';
import { describeWithSqlite, ENGINES, startTestService, transactionBody } from './harness';

// The response validator every API test goes through (harness.ts): it must refuse what
// the document does not declare, or the whole suite proves nothing about the contract.

const ID = '01943a6e-5b1c-7c3a-9f2e-1a2b3c4d5e6f';
const PROBLEM = 'application/problem+json; charset=utf-8';
const problem = (type: string, status: number) =>
  JSON.stringify({ type, title: 't', status, detail: 'd', request_id: 'r', doc_url: `http://localhost/docs/errors#${type.slice(12)}` });

describeWithSqlite('the response validator', () => {
  it('refuses an undeclared status, a body off its schema and an unknown problem type', () => {
    expect(contractProblems('GET', '/transaction/', 418, 'application/json', '{}')[0]).toMatch(/418 is not declared for listTransactions/);
    expect(contractProblems('GET', '/transaction/', 200, 'application/json', '{}').join()).toMatch(/required property 'count'/);
    expect(contractProblems('POST', `/sale/${ID}/capture/`, 409, PROBLEM, problem('urn:problem:nope', 409)).join()).toMatch(/allowed values/);
    expect(contractProblems('GET', `/transaction/${ID}/`, 409, PROBLEM, problem('urn:problem:conflict', 409))[0]).toMatch(/409 is not declared/);
    expect(contractProblems('DELETE', `/product/${ID}/`, 204, null, 'x')[0]).toMatch(/declares no body/);
    expect(contractProblems('GET', `/transaction/${ID}/`, 404, 'text/html', '<p>')[0]).toMatch(/text\/html is not declared/);
    expect(contractProblems('GET', `/transaction/${ID}/`, 404, PROBLEM, problem('urn:problem:not-found', 400))[0]).toMatch(/says status 400/);
    expect(contractProblems('GET', `/transaction/${ID}/`, 404, PROBLEM, problem('urn:problem:conflict', 404))[0]).toMatch(/is a 409 problem/);
    const noDocUrl = JSON.stringify({ ...JSON.parse(problem('urn:problem:not-found', 404)), doc_url: undefined });
    expect(contractProblems('GET', `/transaction/${ID}/`, 404, PROBLEM, noDocUrl).join()).toMatch(/required property 'doc_url'/);
  });

  it('accepts declared answers, problems of unknown routes, and files as they are', () => {
    expect(contractProblems('GET', `/transaction/${ID}/`, 404, PROBLEM, problem('urn:problem:not-found', 404))).toEqual([]);
    expect(contractProblems('PUT', '/transaction/', 404, PROBLEM, problem('urn:problem:not-found', 404))).toEqual([]);
    expect(contractProblems('GET', `/client/${ID}/document/${ID}/file/`, 200, 'application/pdf', '%PDF-1.4')).toEqual([]);
    expect(contractProblems('GET', '/transaction', 308, null, '')).toEqual([]);
  });
});

describe.each(ENGINES)('the response validator on %s', (engine) => {
  it('passes real answers, and a tampered one fails', async () => {
    const t = await startTestService(engine);
    try {
      const api = await t.newEnvironment();
      const made = await api.post('/transaction/', transactionBody());
      expect(made.status).toBe(201);
      const text = JSON.stringify({ ...made.body, created: 'yesterday' });
      expect(contractProblems('POST', '/transaction/', 201, 'application/json', text).join()).toMatch(/created must match format "date-time"/);
    } finally {
      await t.close();
    }
  });
});
