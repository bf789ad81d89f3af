import { describe, expect, it } from 'vitest';
import { API_VERSIONS, CURRENT_VERSION } from '../../server/http/versions';
import { ENGINES, transactionBody, useTestService } from './harness';

// Payment-Service-Version: a request names the version it is written for (none means the
// current one); every answer says which version made it; an unknown one is a 400 that
// names the known ones.

describe.each(ENGINES)('Payment-Service-Version (%s)', (engine) => {
  const svc = useTestService(engine);

  it('absent means the current version, and every answer names the version that made it', async () => {
    expect(CURRENT_VERSION).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    const list = await svc.api.get('/transaction/');
    expect(list.status).toBe(200);
    expect(list.headers.get('payment-service-version')).toBe(CURRENT_VERSION);
    const refused = await svc.api.request('GET', '/transaction/', { auth: null });
    expect(refused.status).toBe(401);
    expect(refused.headers.get('payment-service-version')).toBe(CURRENT_VERSION);
  });

  it('a known version is served and echoed', async () => {
    for (const version of API_VERSIONS) {
      const made = await svc.api.request('POST', '/transaction/', { body: transactionBody(), headers: { 'payment-service-version': version } });
      expect(made.status).toBe(201);
      expect(made.headers.get('payment-service-version')).toBe(version);
    }
  });

  it.each(['2020-01-01', 'latest', '', '2026-11-24', '2026-11-25T00:00:00Z'])('an unknown version (%j) is a 400 naming the known ones, before anything is done', async (version) => {
    const before = (await svc.api.get('/transaction/')).body.count;
    const res = await svc.api.request('POST', '/transaction/', { body: transactionBody(), headers: { 'payment-service-version': version } });
    expect(res.status).toBe(400);
    expect(res.body.type).toBe('urn:problem:invalid-request');
    expect(res.body.errors).toEqual([{ path: 'header.Payment-Service-Version', message: `is not a version of the API; known versions: ${API_VERSIONS.join(', ')}` }]);
    expect(res.body.detail).toContain(CURRENT_VERSION);
    expect((await svc.api.get('/transaction/')).body.count).toBe(before);
    // Even without a key: the version is read first.
    expect((await svc.api.request('GET', '/transaction/', { auth: null, headers: { 'payment-service-version': version } })).status).toBe(400);
  });
});
