import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { ENGINES, problemPaths, useTestService } from './harness';
import { clientBody, documentBody, FILES, IBANS, pdfOfSize, postOnOwnConnection } from './documents';

// Every client operation of the spec, through real HTTP, on each engine: clients, their
// IBANs and their documents, with the decisions the spec leaves open (see docs/clients.md).

const MIB = 1024 * 1024;
const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');

describe.each(ENGINES)('clients on %s', (engine) => {
  const svc = useTestService(engine, 'Marketplace');

  const newClient = async (over: Record<string, unknown> = {}) => {
    const res = await svc.api.post('/client/', clientBody(over));
    expect(res.status, res.text).toBe(201);
    return res.body;
  };

  it('creates a client from the three required fields, everything else null or default', async () => {
    const res = await svc.api.post('/client/', { name: 'Ada Lovelace', id_country: 'GB', id_number: 'X1' });
    expect(res.status, res.text).toBe(201);
    expect(res.body).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      livemode: false,
      enabled_by_compliance: false,
      name: 'Ada Lovelace',
      client_id: null,
      client_type: null,
      id_type: null,
      id_country: 'GB',
      id_number: 'X1',
      id_expiration_date: null,
      email: null,
      phone: null,
      web: null,
      incorporation_date: null,
      birth_date: null,
      birth_country: null,
      nationality: null,
      street: null,
      postal_code: null,
      city: null,
      province: null,
      country: null,
      notify_url: null,
      enabled: true,
      created: expect.any(String),
      updated: expect.any(String),
    });
    expect((await svc.api.get(`/client/${res.body.id}/`)).body).toEqual(res.body);
  });

  it('takes every field of the spec; the phone comes back in E.164', async () => {
    const full = {
      name: 'Acme Payouts SL',
      client_id: 'acme-1',
      client_type: 'company',
      id_type: 'tax_id',
      id_country: 'ES',
      id_number: 'B12345678',
      id_expiration_date: '2030-12-31',
      email: 'finance@acme.example',
      phone: '612 34 56 78',
      web: 'https://acme.example/',
      incorporation_date: '2010-02-28',
      birth_date: null,
      birth_country: 'ES',
      nationality: 'ES',
      street: 'Calle Mayor 1',
      postal_code: '28013',
      city: 'Madrid',
      province: 'Madrid',
      country: 'ES',
      notify_url: 'https://acme.example/hooks',
      enabled: false,
    };
    const res = await svc.api.post('/client/', full);
    expect(res.status, res.text).toBe(201);
    expect(res.body).toMatchObject({ ...full, phone: '+34612345678', enabled_by_compliance: false });
  });

  it('lists clients newest first in the envelope, filtered by client_id and enabled', async () => {
    const a = await newClient({ client_id: 'list-a' });
    const b = await newClient({ client_id: 'list-b', enabled: false });
    const all = await svc.api.get('/client/?page_size=2');
    expect(all.status).toBe(200);
    expect(all.body).toMatchObject({ items_per_page: 2, previous: null, next: expect.stringContaining('page=2') });
    expect(all.body.results.map((c: { id: string }) => c.id)).toEqual([b.id, a.id]);
    expect((await svc.api.get('/client/?client_id=list-a')).body).toMatchObject({ count: 1, results: [a] });
    const disabled = (await svc.api.get('/client/?enabled=false&page_size=100')).body.results.map((c: { id: string }) => c.id);
    expect(disabled).toContain(b.id);
    expect(disabled).not.toContain(a.id);
    expect((await svc.api.get('/client/?enabled_by_compliance=true')).body.count).toBe(0);
  });

  it('refuses a second client with the same client_id (409), in its environment only', async () => {
    await newClient({ client_id: 'dup-1' });
    const again = await svc.api.post('/client/', clientBody({ client_id: 'dup-1', name: 'Someone else' }));
    expect(again.status).toBe(409);
    expect(problemPaths(again)).toEqual(['client_id']);
    expect((await svc.api.get('/client/?client_id=dup-1')).body.count).toBe(1);
    const other = await svc.t.newEnvironment('Other shop');
    expect((await other.post('/client/', clientBody({ client_id: 'dup-1' }))).status).toBe(201);
    // And a PATCH onto a taken client_id.
    const second = await newClient({ client_id: 'dup-2' });
    const patched = await svc.api.patch(`/client/${second.id}/`, { client_id: 'dup-1' });
    expect(patched.status).toBe(409);
    expect((await svc.api.get(`/client/${second.id}/`)).body.client_id).toBe('dup-2');
  });

  it('PATCH changes the fields it names and nothing else; read-only and unknown fields are 400s', async () => {
    const client = await newClient({ email: 'ada@example.org', city: 'London' });
    const res = await svc.api.patch(`/client/${client.id}/`, { city: 'Paris', phone: '+33 1 42 68 53 00' });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toEqual({ ...client, city: 'Paris', phone: '+33142685300', updated: expect.any(String) });
    const cleared = await svc.api.patch(`/client/${client.id}/`, { email: null });
    expect(cleared.body).toEqual({ ...res.body, email: null, updated: expect.any(String) });

    for (const [body, path] of [
      [{ id: '0190f5a8-7c1e-7a4b-9d2e-5f6a7b8c9d0e' }, 'id'],
      [{ enabled_by_compliance: true }, 'enabled_by_compliance'],
      [{ favourite_colour: 'blue' }, 'favourite_colour'],
      [{}, '(body)'],
      [{ name: '' }, 'name'],
      [{ id_country: 'XX' }, 'id_country'],
    ] as const) {
      const refused = await svc.api.patch(`/client/${client.id}/`, body);
      expect(refused.status, JSON.stringify(body)).toBe(400);
      expect(problemPaths(refused)).toContain(path);
    }
    expect((await svc.api.get(`/client/${client.id}/`)).body).toEqual(cleared.body);
  });

  it('keeps incorporation_date for companies, also across a PATCH of client_type', async () => {
    const person = await newClient();
    const refused = await svc.api.patch(`/client/${person.id}/`, { incorporation_date: '2001-01-01' });
    expect(refused.status).toBe(400);
    expect(problemPaths(refused)).toEqual(['incorporation_date']);
    const company = await svc.api.patch(`/client/${person.id}/`, { client_type: 'company', incorporation_date: '2001-01-01' });
    expect(company.status, company.text).toBe(200);
    const back = await svc.api.patch(`/client/${person.id}/`, { client_type: 'individual' });
    expect(back.status).toBe(400);
    expect(problemPaths(back)).toEqual(['incorporation_date']);
  });

  describe('IBANs', () => {
    it('validates, stores the electronic format, lists with filters, and PATCHes', async () => {
      const client = await newClient();
      const res = await svc.api.post(`/client/${client.id}/iban/`, { iban_id: 'main', iban: 'es91 2100 0418 4502 0005 1332' });
      expect(res.status, res.text).toBe(201);
      expect(res.body).toEqual({
        id: expect.any(String),
        livemode: false,
        client: client.id,
        enabled_by_compliance: false,
        iban_id: 'main',
        iban: IBANS.ES,
        account_holder_name: null,
        notify_url: null,
        enabled: true,
        created: expect.any(String),
        updated: expect.any(String),
      });
      const second = (await svc.api.post(`/client/${client.id}/iban/`, { iban: IBANS.DE, enabled: false })).body;
      const base = `/client/${client.id}/iban/`;
      expect((await svc.api.get(`${base}${res.body.id}/`)).body).toEqual(res.body);
      expect((await svc.api.get(base)).body).toMatchObject({ count: 2, results: [second, res.body] });
      expect((await svc.api.get(`${base}?iban_id=main`)).body.results).toEqual([res.body]);
      expect((await svc.api.get(`${base}?enabled=false`)).body.results).toEqual([second]);

      const patched = await svc.api.patch(`${base}${second.id}/`, { enabled: true, iban: 'gb29 nwbk 6016 1331 9268 19' });
      expect(patched.status, patched.text).toBe(200);
      expect(patched.body).toEqual({ ...second, enabled: true, iban: IBANS.GB, updated: expect.any(String) });
      const readOnly = await svc.api.patch(`${base}${second.id}/`, { enabled_by_compliance: true });
      expect(readOnly.status).toBe(400);
      expect(problemPaths(readOnly)).toContain('enabled_by_compliance');
    });

    it('names why an IBAN is refused: country, length, checksum', async () => {
      const client = await newClient();
      for (const [iban, message] of [
        ['US12345678901234', /country that does not use IBANs/],
        ['ES912100041845020005133', /wrong length/],
        ['ES9221000418450200051332', /check digits/],
      ] as const) {
        const res = await svc.api.post(`/client/${client.id}/iban/`, { iban });
        expect(res.status).toBe(400);
        expect(res.body.errors).toEqual([{ path: 'iban', message: expect.stringMatching(message) }]);
      }
      expect((await svc.api.get(`/client/${client.id}/iban/`)).body.count).toBe(0);
    });

    it('keeps iban_id unique per client (409), not across clients', async () => {
      const a = await newClient();
      const b = await newClient();
      expect((await svc.api.post(`/client/${a.id}/iban/`, { iban_id: 'payout', iban: IBANS.ES })).status).toBe(201);
      const dup = await svc.api.post(`/client/${a.id}/iban/`, { iban_id: 'payout', iban: IBANS.DE });
      expect(dup.status).toBe(409);
      expect(problemPaths(dup)).toEqual(['iban_id']);
      expect((await svc.api.post(`/client/${b.id}/iban/`, { iban_id: 'payout', iban: IBANS.DE })).status).toBe(201);
    });

    it("an IBAN is found only under its own client", async () => {
      const a = await newClient();
      const b = await newClient();
      const iban = (await svc.api.post(`/client/${a.id}/iban/`, { iban: IBANS.FR })).body;
      expect((await svc.api.get(`/client/${b.id}/iban/${iban.id}/`)).status).toBe(404);
      expect((await svc.api.patch(`/client/${b.id}/iban/${iban.id}/`, { enabled: false })).status).toBe(404);
      const missing = '0190f5a8-7c1e-7a4b-9d2e-5f6a7b8c9d0e';
      expect((await svc.api.get(`/client/${missing}/iban/`)).status).toBe(404);
      expect((await svc.api.post(`/client/${missing}/iban/`, { iban: IBANS.FR })).status).toBe(404);
    });
  });

  describe('documents', () => {
    it.each(Object.entries(FILES))('stores a %s and gives its bytes back only as an attachment', async (contentType, file) => {
      const client = await newClient();
      const res = await svc.api.post(`/client/${client.id}/document/`, documentBody({ content_type: contentType, type: 'proof_of_address' }));
      expect(res.status, res.text).toBe(201);
      expect(res.body).toEqual({
        id: expect.any(String),
        livemode: false,
        client: client.id,
        type: 'proof_of_address',
        status: 'pending',
        status_reason: null,
        file: { name: file.name, content_type: contentType, size: file.bytes.length, sha256: sha256(file.bytes) },
        reviewed: null,
        created: expect.any(String),
        updated: expect.any(String),
      });
      const base = `/client/${client.id}/document/`;
      expect((await svc.api.get(`${base}${res.body.id}/`)).body).toEqual(res.body);
      expect((await svc.api.get(base)).body).toMatchObject({ count: 1, results: [res.body] });

      const download = await fetch(`${svc.t.url}/v1${base}${res.body.id}/file/`, { headers: { authorization: svc.api.auth } });
      expect(download.status).toBe(200);
      expect(download.headers.get('content-type')).toBe(contentType);
      expect(download.headers.get('content-disposition')).toBe(`attachment; filename=${file.name}`);
      expect(download.headers.get('x-content-type-options')).toBe('nosniff');
      expect(Buffer.from(await download.arrayBuffer())).toEqual(file.bytes);
    });

    it('filters documents by type and status; they cannot be edited', async () => {
      const client = await newClient();
      const base = `/client/${client.id}/document/`;
      const front = (await svc.api.post(base, documentBody({ type: 'identity_front' }))).body;
      await svc.api.post(base, documentBody({ type: 'bank_statement' }));
      expect((await svc.api.get(`${base}?type=identity_front`)).body.results).toEqual([front]);
      expect((await svc.api.get(`${base}?status=pending`)).body.count).toBe(2);
      expect((await svc.api.get(`${base}?status=accepted`)).body.count).toBe(0);
      for (const method of ['PATCH', 'DELETE']) {
        const res = await svc.api.request(method, `${base}${front.id}/`, { body: { type: 'other' } });
        expect(res.status).toBe(405);
        expect(res.headers.get('allow')).toBe('GET, HEAD, OPTIONS');
      }
      expect((await svc.api.get(`${base}${front.id}/`)).body).toEqual(front);
    });

    it('takes a document of exactly 10 MiB; one byte more is a 413 naming the limit', { timeout: 60_000 }, async () => {
      const client = await newClient();
      const base = `/client/${client.id}/document/`;
      const upload = (bytes: Buffer) => postOnOwnConnection(`${svc.t.url}/v1${base}`, svc.api.auth, documentBody({ bytes }));
      const max = pdfOfSize(10 * MIB);
      const ok = await upload(max);
      expect(ok.status, JSON.stringify(ok.body).slice(0, 300)).toBe(201);
      expect(ok.body.file).toMatchObject({ size: 10 * MIB, sha256: sha256(max) });
      const file = await fetch(`${svc.t.url}/v1${base}${ok.body.id}/file/`, { headers: { authorization: svc.api.auth } });
      expect(sha256(Buffer.from(await file.arrayBuffer()))).toBe(sha256(max));

      for (const size of [10 * MIB + 1, 11 * MIB]) {
        const res = await upload(pdfOfSize(size));
        expect(res.status).toBe(413);
        expect(res.body).toMatchObject({ status: 413, errors: [{ path: 'file.data', message: expect.any(String) }] });
        expect(res.body.detail).toMatch(/10 MiB \(10485760 bytes\)/);
      }
      expect((await svc.api.get(base)).body.count).toBe(1);
    });

    it('other routes keep the small body limit, and say what it is', async () => {
      const res = await svc.api.post('/client/', clientBody({ street: 'x'.repeat(200_000) }));
      expect(res.status).toBe(413);
      problemPaths(res);
      expect(res.body.detail).toMatch(/size limit of \d+ bytes/);
    });

    it('refuses a file whose bytes are not what its content type says', async () => {
      const client = await newClient();
      const res = await svc.api.post(
        `/client/${client.id}/document/`,
        documentBody({ content_type: 'application/pdf', name: 'scan.pdf', bytes: FILES['image/png'].bytes }),
      );
      expect(res.status).toBe(400);
      expect(res.body.errors).toEqual([{ path: 'file.content_type', message: expect.stringContaining('image/png') }]);
    });
  });
});
