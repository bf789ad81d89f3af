import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clientBody, documentBody, IBANS, pdfOfSize, postOnOwnConnection } from '../api/documents';
import { payToken } from '../api/pay';
import { type ServiceProcess, startServiceProcess } from '../api/process';
import { createShopKeys } from '../shop-keys';

// Clients and customers are people: their names, id numbers, phones, e-mails, IBANs and
// documents must never reach the logs. The service runs as a real process with its background work on
// (so the compliance review logs too) at debug level, and its whole output is searched.

describe('personal data in logs', () => {
  let service: ServiceProcess;
  let dataDir: string;
  let headers: Record<string, string>;

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'checkout-pii-'));
    const keys = await createShopKeys('PII shop', { DATA_DIR: dataDir });
    headers = { authorization: `AppKeys ${keys.public_key}:${keys.secret_key}`, 'content-type': 'application/json' };
    service = await startServiceProcess({ DATA_DIR: dataDir, BACKGROUND_WORK: 'true', LOG_LEVEL: 'debug' });
  }, 60_000);

  afterAll(async () => {
    await service?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const send = async (method: string, path: string, body: unknown) => {
    const res = await fetch(`${service.url}/v1${path}`, { method, headers, body: JSON.stringify(body) });
    return { status: res.status, body: (await res.json()) as { id: string } };
  };

  it('never logs names, id numbers, phones, e-mails, IBANs, file names or document bytes', { timeout: 60_000 }, async () => {
    const person = {
      name: 'Zenobia Quartermaine',
      id_number: 'ZQ98765432',
      phone: '+34 699 123 456',
      email: 'zenobia.q@example.org',
      street: 'Calle Zenobia 42',
      client_id: 'zenobia-external',
    };
    const marker = 'ZENOBIA-DOCUMENT-BYTES';
    const bytes = pdfOfSize(4096);
    bytes.write(marker, 100);
    const fileName = 'zenobia-passport.pdf';

    const client = await send('POST', '/client/', clientBody({ ...person, id_country: 'ES' }));
    expect(client.status).toBe(201);
    const ibanPath = `/client/${client.body.id}/iban/`;
    expect((await send('POST', ibanPath, { iban: IBANS.FR })).status).toBe(201);
    const docPath = `/client/${client.body.id}/document/`;
    const doc = await send('POST', docPath, documentBody({ bytes, name: fileName }));
    expect(doc.status).toBe(201);
    // Refusals too: a wrong IBAN, a taken client_id, a bad phone, a file too large.
    const badIban = 'ES7921000813610123456788';
    expect((await send('POST', ibanPath, { iban: badIban })).status).toBe(400);
    expect((await send('POST', '/client/', clientBody({ ...person, id_country: 'ES' }))).status).toBe(409);
    expect((await send('PATCH', `/client/${client.body.id}/`, { phone: '+34 699 zenobia' })).status).toBe(400);
    const tooLarge = documentBody({ bytes: pdfOfSize(11 * 1024 * 1024), name: fileName });
    expect((await postOnOwnConnection(`${service.url}/v1${docPath}`, headers.authorization!, tooLarge)).status).toBe(413);
    const file = await fetch(`${service.url}/v1${docPath}${doc.body.id}/file/`, { headers });
    expect(Buffer.from(await file.arrayBuffer()).includes(marker)).toBe(true);

    // The review ran and logged its line.
    await expect
      .poll(() => service.output.some((l) => l.includes('document reviewed') && l.includes(doc.body.id)), { timeout: 30_000 })
      .toBe(true);

    const log = service.output.join('\n');
    const secrets = [
      ...Object.values(person),
      '+34699123456',
      '699 123 456',
      IBANS.FR,
      badIban,
      fileName,
      marker,
      bytes.toString('base64').slice(0, 40),
    ];
    for (const secret of secrets) expect(log, secret).not.toContain(secret);
  });

  it("never logs a customer's e-mail address, on the transaction or in the receipt sent to it", { timeout: 60_000 }, async () => {
    const email = 'zenobia.receipts@example.org';
    const created = await send('POST', '/transaction/', { currency: 'EUR', customer_email: email, products: [{ amount: 1, product: { name: 'Tea', price: 3 } }] });
    expect(created.status).toBe(201);
    const bad = await send('POST', '/transaction/', { currency: 'EUR', customer_email: 'zenobia.receipts@', products: [{ amount: 1, product: { name: 'Tea', price: 3 } }] });
    expect(bad.status).toBe(400);
    expect(await payToken(service.url, (created.body as unknown as { token: string }).token)).toBe(200);
    // The receipt went out (to DATA_DIR/outbox/, without SMTP_URL) and was logged.
    await expect.poll(() => service.output.some((l) => l.includes('email sent')), { timeout: 30_000 }).toBe(true);
    const log = service.output.join('\n');
    for (const secret of [email, 'zenobia.receipts@', 'zenobia.receipts']) expect(log, secret).not.toContain(secret);
  });
});
