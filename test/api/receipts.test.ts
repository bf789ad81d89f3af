import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { simpleParser } from 'mailparser';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { JOB_NAMES } from '../../server/jobs';
import { TEST_CARDS } from '../../server/domain/test-cards';
import { mailsOf } from '../../server/store/mails';
import { startIsolatedService } from './database';
import { type Client, describeWithSqlite, ENGINES, type TestService, testClock } from './harness';
import { checkoutPost, paidTransaction, SANDBOX_CARD } from './pay';
import { startSmtp, type TestSmtp } from './smtp';

// Receipts, sign-up confirmations and trial reminders, sent by the service's mail job over
// real SMTP to a server in this process and read back as a mail client reads them.

const DAY = 24 * 60 * 60_000;

/** Intl writes "17,00 €" with a no-break space: compared as plain spaces. */
const plain = (text: string | false | undefined) => String(text).replace(/[\u00a0\u202f]/g, ' ');

const order = (over: Record<string, unknown> = {}) => ({
  currency: 'EUR',
  order_id: 'A-1001',
  products: [
    { amount: 2, product: { name: 'Café en grano', price: 8.5 } },
    { amount: 1, product: { name: 'Taza', price: 12 } },
  ],
  shipping_value: 4.95,
  shipping_name: 'Mensajero',
  ...over,
});

describe.each(ENGINES)('customer emails on %s', (engine) => {
  let t: TestService;
  let smtp: TestSmtp;
  let api: Client;
  const clock = testClock();

  beforeAll(async () => {
    smtp = await startSmtp();
    t = await startIsolatedService(engine, { now: clock.now, env: { SMTP_URL: smtp.url, MAIL_FROM: 'receipts@pay.example' } });
  });
  afterAll(async () => {
    await t?.close();
    await smtp?.close();
  });
  beforeEach(async () => {
    clock.reset();
    smtp.refuse = false;
    api = await t.newEnvironment('Shop account');
    const brand = await api.patch('/environment/branding/', { display_name: 'Tostadores Ana', support_email: 'help@shop.example' });
    expect(brand.status, brand.text).toBe(200);
    smtp.received.length = 0;
  });

  const sendMail = () => t.service.jobs.runOnce(JOB_NAMES.mail);

  it('sends a receipt in the transaction\'s language with the lines, totals, card brand and last four, as text and HTML', async () => {
    const { transaction } = await paidTransaction(api, order({ language: 'es', customer_email: 'ana@example.com' }));
    expect(transaction.customer_email).toBe('ana@example.com');
    await sendMail();
    expect(smtp.received).toHaveLength(1);
    const { mail, raw, envelopeTo } = smtp.received[0]!;
    expect(envelopeTo).toEqual(['ana@example.com']);
    expect(mail.from?.value).toEqual([{ name: 'Tostadores Ana', address: 'receipts@pay.example' }]);
    expect(mail.replyTo?.value[0]?.address).toBe('help@shop.example');
    expect(mail.subject).toBe('Tu recibo de Tostadores Ana');
    expect(mail.headers.get('content-language')).toBe('es');
    const text = plain(mail.text);
    for (const part of ['Gracias por tu pago a Tostadores Ana.', 'Pedido A-1001', '2 × Café en grano', '17,00 €', '1 × Taza', '12,00 €', 'Mensajero', '4,95 €', 'Total pagado', '33,95 €', 'Visa terminada en 4242', 'help@shop.example']) {
      expect(text).toContain(part);
    }
    expect(mail.html).toContain('<html lang="es">');
    expect(mail.html).toContain('Visa terminada en 4242');
    expect(plain(mail.html)).toContain('33,95 €');
    // Never more of the card than its last four.
    expect(raw).not.toContain(TEST_CARDS.approved);
    expect(raw).not.toContain('424242424242');
    // The Message-ID is the change's event id; once sent, the address and words are erased.
    const [row] = await mailsOf(t.service.deps.database.db, transaction.id);
    expect(mail.messageId).toBe(`<${row!.id}@pay.example>`);
    expect(row).toMatchObject({ status: 'sent', kind: 'payment_receipt', recipient: null, content: null, attempt_count: 1 });
    // Sent once: the next round has nothing to send.
    await sendMail();
    expect(smtp.received).toHaveLength(1);
    // The row that recorded it goes with the retention of events (30 days by default).
    clock.advance(31 * DAY);
    await t.service.jobs.runOnce(JOB_NAMES.retention);
    expect(await mailsOf(t.service.deps.database.db, transaction.id)).toEqual([]);
  });

  it('sends a receipt after each refund, in French, with what this refund and all refunds came to', async () => {
    const { transaction, sale } = await paidTransaction(api, order({ language: 'fr', customer_email: 'marie@example.com' }));
    for (const amount of [5, 10.5]) expect((await api.post(`/sale/${sale.id}/refund/`, { amount })).status).toBe(200);
    await sendMail();
    const subjects = smtp.received.map((r) => r.mail.subject);
    expect(subjects).toEqual(['Votre reçu de Tostadores Ana', 'Votre remboursement de Tostadores Ana', 'Votre remboursement de Tostadores Ana']);
    const refunds = smtp.received.slice(1).map((r) => plain(r.mail.text));
    expect(refunds[0]).toContain('Tostadores Ana vous a remboursé 5,00 €.');
    expect(refunds[0]).toMatch(/Remboursé à ce jour\s+5,00 €/);
    expect(refunds[1]).toContain('Tostadores Ana vous a remboursé 10,50 €.');
    expect(refunds[1]).toMatch(/Remboursé à ce jour\s+15,50 €/);
    expect(refunds[1]).toMatch(/Paiement initial\s+33,95 €/);
    expect(refunds[1]).toContain('Visa se terminant par 4242');
    // The reference the paid screen showed, as the API's sale gives it (docs/api.md).
    expect(refunds[1]).toContain(`Référence : ${sale.reference}`);
    expect(refunds[1]).not.toContain(transaction.id);
    expect(smtp.received.every((r) => r.envelopeTo[0] === 'marie@example.com')).toBe(true);
  });

  it('sends nothing for a transaction without customer_email, and refuses an address that is not one', async () => {
    await paidTransaction(api, order());
    await sendMail();
    expect(smtp.received).toHaveLength(0);
    const bad = await api.post('/transaction/', order({ customer_email: 'not an address' }));
    expect(bad.status).toBe(400);
    expect(bad.body.errors[0].path).toBe('customer_email');
  });

  it('retries an email the SMTP server refused, and sends it later with the same Message-ID', async () => {
    const { transaction } = await paidTransaction(api, order({ language: 'en', customer_email: 'bo@example.com' }));
    smtp.refuse = true;
    await sendMail();
    expect(smtp.received).toHaveLength(0);
    const [failed] = await mailsOf(t.service.deps.database.db, transaction.id);
    expect(failed).toMatchObject({ status: 'pending', attempt_count: 1, recipient: 'bo@example.com' });
    smtp.refuse = false;
    clock.advance(60_000);
    await sendMail();
    expect(smtp.received.map((r) => r.mail.messageId)).toEqual([`<${failed!.id}@pay.example>`]);
    expect(smtp.received[0]!.mail.subject).toBe('Your receipt from Tostadores Ana');
  });

  describe('sign-up', () => {
    async function signup(language: string, trialDays: number): Promise<{ id: string; token: string }> {
      const plan = await api.post('/plan/', { name: 'Café del mes', amount: 9.99, currency: 'EUR', interval: 'month', trial_days: trialDays });
      const sub = await api.post('/subscription/', { plan: plan.body.id, language });
      expect(sub.status, sub.text).toBe(201);
      const token = /\/pay\/(sub_[^/]+)\//.exec(sub.body.payment_url)![1]!;
      const res = await checkoutPost(t.url, token, {
        action: 'pay',
        gateway: SANDBOX_CARD,
        fields: { customer_email: 'luis@example.com', card_number: TEST_CARDS.approved, card_expiry: '12/34', card_cvc: '123', card_name: 'L' },
      });
      expect(res.status, await res.text()).toBe(200);
      return { id: sub.body.id, token };
    }

    it('confirms the terms by email, then reminds before the first charge after the trial, once (Spanish)', async () => {
      const sub = await signup('es', 14);
      await sendMail();
      expect(smtp.received).toHaveLength(1);
      const confirmation = smtp.received[0]!.mail;
      expect(confirmation.subject).toBe('Tu suscripción a Café del mes con Tostadores Ana');
      const text = plain(confirmation.text);
      expect(text).toContain('Tu prueba gratuita dura 14 días. Hoy no se ha cobrado nada.');
      expect(text).toContain('Autorizaste a Tostadores Ana a cobrarte 9,99 € cada mes hasta que canceles.');
      expect(text).toContain('Tarjeta: Visa terminada en 4242');

      // Eight days before the first charge: not yet (the setting is 7).
      clock.advance(6 * DAY);
      await t.service.jobs.runOnce(JOB_NAMES.trialReminders);
      await sendMail();
      expect(smtp.received).toHaveLength(1);
      clock.advance(2 * DAY);
      await t.service.jobs.runOnce(JOB_NAMES.trialReminders);
      await t.service.jobs.runOnce(JOB_NAMES.trialReminders);
      await sendMail();
      expect(smtp.received).toHaveLength(2);
      const reminder = smtp.received[1]!.mail;
      expect(reminder.subject).toMatch(/^Tu prueba gratuita con Tostadores Ana termina el \d+ de \w+ de \d{4}$/);
      expect(plain(reminder.text)).toContain('se te cobrarán 9,99 €, y después 9,99 € cada mes hasta que canceles.');
      expect(reminder.html).toContain('<html lang="es">');
      const kinds = (await mailsOf(t.service.deps.database.db, sub.id)).map((m) => m.kind);
      expect(kinds).toEqual(['signup_confirmation', 'trial_reminder']);
    });

    it('writes the confirmation in French, and nothing for a sign-up without an email', async () => {
      await signup('fr', 3);
      await sendMail();
      expect(smtp.received.map((r) => r.mail.subject)).toEqual(['Votre abonnement à Café del mes chez Tostadores Ana']);
      expect(smtp.received[0]!.mail.text).toContain('Votre essai gratuit dure 3 jours.');
      const plan = await api.post('/plan/', { name: 'Sin correo', amount: 5, currency: 'EUR', interval: 'month' });
      const sub = await api.post('/subscription/', { plan: plan.body.id });
      const token = /\/pay\/(sub_[^/]+)\//.exec(sub.body.payment_url)![1]!;
      const res = await checkoutPost(t.url, token, {
        action: 'pay',
        gateway: SANDBOX_CARD,
        fields: { card_number: TEST_CARDS.approved, card_expiry: '12/34', card_cvc: '123', card_name: 'L' },
      });
      expect(res.status).toBe(200);
      await sendMail();
      expect(smtp.received).toHaveLength(1);
    });

    it('refuses a sign-up whose email is not an address, naming the field', async () => {
      const plan = await api.post('/plan/', { name: 'Pro', amount: 5, currency: 'EUR', interval: 'month' });
      const sub = await api.post('/subscription/', { plan: plan.body.id });
      const token = /\/pay\/(sub_[^/]+)\//.exec(sub.body.payment_url)![1]!;
      const res = await checkoutPost(t.url, token, {
        action: 'pay',
        gateway: SANDBOX_CARD,
        fields: { customer_email: 'luis@', card_number: TEST_CARDS.approved, card_expiry: '12/34', card_cvc: '123', card_name: 'L' },
      });
      expect(res.status).toBe(400);
      const body = (await res.json()) as { view: { error: { fields: Record<string, string> } } };
      expect(body.view.error.fields).toEqual({ customer_email: 'error.email' });
      expect((await api.get(`/subscription/${sub.body.id}/`)).body.status).toBe('waiting');
    });
  });
});

describeWithSqlite('without SMTP_URL', () => {
  let t: TestService;
  beforeAll(async () => {
    t = await startIsolatedService('sqlite');
  });
  afterAll(() => t?.close());

  it('writes each email to DATA_DIR/outbox/ as an .eml file a mail client opens', async () => {
    const api = await t.newEnvironment('Dev shop');
    const { transaction } = await paidTransaction(api, order({ language: 'au', customer_email: 'kim@example.com' }));
    await t.service.jobs.runOnce(JOB_NAMES.mail);
    const dir = join(t.dataDir, 'outbox');
    expect(existsSync(dir)).toBe(true);
    const [row] = await mailsOf(t.service.deps.database.db, transaction.id);
    expect(readdirSync(dir)).toEqual([`${row!.id}.eml`]);
    const mail = await simpleParser(readFileSync(join(dir, `${row!.id}.eml`)));
    expect(mail.to && !Array.isArray(mail.to) ? mail.to.value[0]?.address : null).toBe('kim@example.com');
    expect(mail.subject).toBe('Your receipt from Dev shop');
    expect(mail.text).toContain('Thanks for your payment to Dev shop.');
    expect(mail.text).toContain('Questions? Contact Dev shop.');
  });
});
