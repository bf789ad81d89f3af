import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ActionInput, GatewayNotificationOnly } from '../../server/payments/gateway';
import { RedsysMismatch, RedsysUnknownOutcome } from '../../server/payments/redsys/answers';
import { operationsInMemory } from '../../server/payments/redsys/context';
import { type RedsysGateway, redsysGateways } from '../../server/payments/redsys/gateway';
import type { RedirectResult } from '../../server/payments/redsys/pay';
import { PUBLIC_TEST_KEY } from '../../server/payments/redsys/settings';
import { decodeParameters, encodeParameters, sign } from '../../server/payments/redsys/signature';
import { decideOnPage, type Received, signedFields, startReceiver } from '../redsys/helpers';
import { type RedsysDouble, startRedsysDouble } from '../redsys/server';

// The Redsys connector's core against the strict Redsys double over real HTTP: redirects
// driven through the double's page, notifications verified (and refused when tampered or
// downgraded), returns that only query, confirmations, cancellations and refunds that are
// never carried out twice (a lost answer is found by the query service, and without the
// service the call goes to attention), stored-card charges, and answers that do not match.
// What the connector must not send is asserted on the double's request log.

let double: RedsysDouble;
let receiver: Awaited<ReturnType<typeof startReceiver>>;
let card: RedsysGateway;
let bizum: RedsysGateway;
/** Terminal 2 of the test merchant: no query service. */
let blind: RedsysGateway;
const signal = new AbortController().signal;
const reference = () => `gc_${randomUUID()}`;
const settings = (terminal: string, query_service: boolean) => ({ merchant_code: '999008881', terminal, secret_key: PUBLIC_TEST_KEY, signature_version: 'HMAC_SHA256_V1' as const, apiUrl: double.url, query_service, notificationUrl: receiver.url });
const rests = () => double.requests.filter((r) => r.service === 'rest');
const pay = (gateway: RedsysGateway, overrides: { amount?: number; currency?: string; capture?: boolean } = {}) =>
  gateway.pay({ reference: reference(), signal, amount: 2500, currency: 'EUR', capture: true, fields: {}, returnUrl: 'https://pay.example/return/gc_1', ...overrides });

/** A redirect the customer completes on the double's page; the notification the merchant URL received. */
async function completed(gateway: RedsysGateway, decision: 'approve' | 'deny' | 'insufficient' = 'approve', overrides: Parameters<typeof pay>[1] = {}) {
  const input = { reference: reference(), signal, amount: 2500, currency: 'EUR', capture: true, fields: {}, returnUrl: 'https://pay.example/return', ...overrides };
  const redirect = (await gateway.pay(input)) as RedirectResult;
  expect(redirect.outcome).toBe('redirect');
  const before = receiver.received.length;
  const answer = await decideOnPage(redirect.redirect.url, redirect.redirect.fields, decision);
  expect(receiver.received).toHaveLength(before + 1);
  return { input, redirect, notified: receiver.received.at(-1)!, location: answer.headers.get('location') };
}

/** A payment approved through the page and its notification: the reference the service would record. */
async function paid(gateway: RedsysGateway, overrides: Parameters<typeof pay>[1] = {}): Promise<string> {
  const { input, notified } = await completed(gateway, 'approve', overrides);
  const result = await gateway.notification!(notified);
  expect(result).toMatchObject({ reference: input.reference, result: { status: 'succeeded' } });
  return (result!.result as { reference: string }).reference;
}

const action = (payment: string, amount: number, ref = reference()): ActionInput => ({ reference: ref, signal, payment, amount });
const refundsOf = (order: string, terminal = 0) => double.books.find(double.terminals[terminal]!, order)?.operations.filter((op) => op.type === '3') ?? [];

/** A refund of a fresh payment whose first send fails: `fail` before Redsys acts, `lose` its answer after. */
async function unansweredRefund(gateway: RedsysGateway, fault: 'fail' | 'lose', amount: number) {
  const payment = await paid(gateway);
  const refund = action(payment, amount);
  if (fault === 'lose') double.loseNext('rest');
  else double.failNext('rest');
  await expect(gateway.refund(refund)).rejects.toThrow();
  return { order: payment.split(':')[0]!, refund };
}

/** The notification's form with its parameters changed and its signature kept. */
function tampered(notified: Received, change: (params: Record<string, unknown>) => Record<string, unknown>): Received {
  const fields = Object.fromEntries(new URLSearchParams(notified.body.toString()));
  const params = change(decodeParameters(fields.Ds_MerchantParameters!)!);
  return { ...notified, body: Buffer.from(new URLSearchParams({ ...fields, Ds_MerchantParameters: encodeParameters(params as Record<string, string>) }).toString()) };
}

beforeAll(async () => {
  double = await startRedsysDouble();
  receiver = await startReceiver();
  [card, bizum] = redsysGateways(settings('1', true));
  [blind] = redsysGateways(settings('2', false));
});
afterAll(async () => {
  await double.close();
  await receiver.close();
});

describe('Redsys connector: gateways and redirects', () => {
  it('declares two gateways of interface 2 with stable ids, redirect flow, Bizum euro-only without holds, and the Redsys origin for form-action', () => {
    expect(card).toMatchObject({ version: 2, id: '0190f5a0-0000-7000-8000-0000000e5001', code: 'redsys-card', flow: 'redirect', currencies: ['EUR'], capabilities: { hold: true }, origins: { form: ['https://sis-t.redsys.es:25443'], redirect: ['https://sis-t.redsys.es:25443'] }, replacedOrigin: new URL(double.url).origin });
    expect(bizum).toMatchObject({ version: 2, id: '0190f5a0-0000-7000-8000-0000000e5002', code: 'redsys-bizum', flow: 'redirect', currencies: ['EUR'], capabilities: { hold: false } });
    expect(bizum.store).toBeUndefined();
    expect(redsysGateways({ ...settings('1', true), apiUrl: undefined })[0].origins).toEqual({ form: ['https://sis-t.redsys.es:25443'], redirect: ['https://sis-t.redsys.es:25443'] });
  });

  it('answers a card payment with a signed POST to the payment page, the order as processor id, our reference in MerchantData', async () => {
    const result = (await pay(card)) as RedirectResult;
    expect(result).toMatchObject({ outcome: 'redirect', redirect: { url: `${double.url}/sis/realizarPago`, method: 'POST' }, processorId: expect.stringMatching(/^\d{4}[A-Za-z0-9]{8}$/) });
    const params = decodeParameters(result.redirect.fields.Ds_MerchantParameters)!;
    expect(params).toMatchObject({ DS_MERCHANT_AMOUNT: '2500', DS_MERCHANT_CURRENCY: '978', DS_MERCHANT_ORDER: result.processorId, DS_MERCHANT_TRANSACTIONTYPE: '0', DS_MERCHANT_PAYMETHODS: 'C', DS_MERCHANT_URLOK: 'https://pay.example/return/gc_1', DS_MERCHANT_MERCHANTURL: receiver.url });
    expect(result.redirect.fields.Ds_Signature).toBe(sign('HMAC_SHA256_V1', PUBLIC_TEST_KEY, result.processorId, result.redirect.fields.Ds_MerchantParameters));
  });

  it("pays by Bizum with DS_MERCHANT_PAYMETHODS z, and refuses what Bizum cannot do before the customer goes anywhere", async () => {
    const { redirect } = await completed(bizum);
    expect(decodeParameters(redirect.redirect.fields.Ds_MerchantParameters)).toMatchObject({ DS_MERCHANT_PAYMETHODS: 'z' });
    expect(await pay(bizum, { currency: 'USD' })).toMatchObject({ outcome: 'not_acted', reason: 'Bizum takes euros only' });
    expect(await pay(bizum, { capture: false })).toMatchObject({ outcome: 'not_acted', reason: expect.stringContaining('cannot hold') });
    expect(await bizum.charge({ reference: reference(), signal, method: 'x', amount: 1, currency: 'EUR' })).toMatchObject({ outcome: 'not_acted' });
  });
});

describe('Redsys connector: notifications and returns', () => {
  it('maps a verified notification: approved, declined, insufficient funds', async () => {
    const approved = await completed(card);
    expect(await card.notification!(approved.notified)).toEqual({ reference: approved.input.reference, result: { status: 'succeeded', reference: `${approved.redirect.processorId}:978`, card: expect.objectContaining({ last4: expect.stringMatching(/^\d{4}$/) }) } });
    const denied = await completed(card, 'deny');
    expect(await card.notification!(denied.notified)).toMatchObject({ result: { status: 'failed', reason: 'declined' } });
    const broke = await completed(card, 'insufficient');
    expect(await card.notification!(broke.notified)).toMatchObject({ result: { status: 'failed', reason: 'insufficient_funds' } });
  });

  it('refuses a tampered notification, a downgraded one, one for another terminal, and one signed with another key: null, nothing read', async () => {
    const { notified } = await completed(card, 'deny');
    expect(await card.notification!(tampered(notified, (p) => ({ ...p, Ds_Response: '0000' })))).toBeNull();
    const fields = Object.fromEntries(new URLSearchParams(notified.body.toString()));
    // A V2-configured terminal takes no V1 notification, however well signed.
    const [v2] = redsysGateways({ ...settings('1', true), signature_version: 'HMAC_SHA512_V2' });
    expect(await v2.notification!(notified)).toBeNull();
    expect(await card.notification!({ ...notified, body: Buffer.from(new URLSearchParams({ ...fields, Ds_SignatureVersion: 'HMAC_SHA512_V2' }).toString()) })).toBeNull();
    const [otherKey] = redsysGateways({ ...settings('1', true), secret_key: Buffer.alloc(24, 3).toString('base64') });
    expect(await otherKey.notification!(notified)).toBeNull();
    // Terminal 2's connector: the notification is terminal 1's.
    expect(await blind.notification!(notified)).toBeNull();
    expect(await card.notification!({ headers: {}, body: Buffer.from('Ds_Signature=x') })).toBeNull();
  });

  it("reads the customer's return only to query Redsys: a forged one is not_acted; without the query service it stays pending", async () => {
    const { input, redirect, location } = await completed(card);
    const query = Object.fromEntries(new URL(location!).searchParams);
    const queriesBefore = double.requests.filter((r) => r.service === 'query').length;
    expect(await card.return({ reference: input.reference, signal, query, body: {} })).toMatchObject({ outcome: 'approved', reference: `${redirect.processorId}:978` });
    expect(double.requests.filter((r) => r.service === 'query').length).toBeGreaterThan(queriesBefore);
    const forged = tampered({ headers: {}, body: Buffer.from(new URLSearchParams(query).toString()) }, (p) => ({ ...p, Ds_Amount: '1' }));
    expect(await card.return({ reference: input.reference, signal, query: Object.fromEntries(new URLSearchParams(forged.body.toString())), body: {} })).toMatchObject({ outcome: 'not_acted' });
    expect(await card.return({ reference: reference(), signal, query, body: {} })).toMatchObject({ outcome: 'not_acted' });
    const other = await completed(blind);
    const blindReturn = Object.fromEntries(new URL(other.location!).searchParams);
    expect(await blind.return({ reference: other.input.reference, signal, query: blindReturn, body: {} })).toEqual({ outcome: 'pending' });
  });
});

describe('Redsys connector: confirmations, cancellations, refunds', () => {
  it('confirms part of a hold that stored the card, cancels another, refunds in parts; the same reference again answers without asking Redsys', async () => {
    const held = await paid(card, { capture: false });
    expect(held).toMatch(/^\w{12}:978:[0-9a-f]{40}:\d+$/);
    const capture = action(held, 2000);
    expect(await card.capture(capture)).toEqual({ ok: true, reference: expect.stringMatching(/:2:1$/) });
    const sent = rests().length;
    expect(await card.capture(capture)).toEqual({ ok: true, reference: expect.stringMatching(/:2:1$/) });
    expect(rests().length).toBe(sent);
    expect(await card.refund(action(held, 500))).toEqual({ ok: true, reference: expect.any(String) });
    const other = await paid(card, { capture: false });
    expect(await card.void(action(other, 2500))).toEqual({ ok: true, reference: expect.any(String) });
  });

  it("says not_acted when Redsys refuses (an over-refund: SIS0057) and for what is not this connector's payment", async () => {
    const payment = await paid(card);
    expect(await card.refund(action(payment, 2501))).toMatchObject({ outcome: 'not_acted', reason: expect.stringContaining('SIS0057') });
    expect(await card.refund(action('pi_123', 100))).toMatchObject({ outcome: 'not_acted' });
    expect(refundsOf(payment.split(':')[0]!)).toHaveLength(0);
  });

  it('a refund whose answer is lost is found by the query service and never sent twice', async () => {
    const { order, refund } = await unansweredRefund(card, 'lose', 1000);
    expect(refundsOf(order)).toHaveLength(1);
    const sent = rests().length;
    // Meanwhile the order takes no other operation: another refund of 1000 would be counted as this one.
    const payment = `${order}:978`;
    expect(await card.refund(action(payment, 1000))).toMatchObject({ outcome: 'not_acted', reason: expect.stringContaining('unknown outcome') });
    // The retry of the same reference asks the query service first: one more refund of 1000 than before it was sent is ours.
    expect(await card.refund(refund)).toEqual({ ok: true, reference: `${order}:3:1` });
    expect(await card.lookup!({ reference: refund.reference, signal, kind: 'refund' })).toMatchObject({ status: 'succeeded' });
    expect(rests().length).toBe(sent);
    expect(refundsOf(order)).toHaveLength(1);
    // Resolved, the order takes the next one.
    expect(await card.refund(action(payment, 1000))).toMatchObject({ ok: true });
    expect(refundsOf(order)).toHaveLength(2);
  });

  it('a refund that surely failed before Redsys acted is sent again once the query shows it was not made', async () => {
    const { order, refund } = await unansweredRefund(card, 'fail', 700);
    expect(refundsOf(order)).toHaveLength(0);
    expect(await card.refund(refund)).toEqual({ ok: true, reference: expect.any(String) });
    expect(refundsOf(order)).toHaveLength(1);
  });

  it('without the query service an unknown refund is never sent again: RedsysUnknownOutcome, for attention', async () => {
    const { order, refund } = await unansweredRefund(blind, 'lose', 1000);
    const sent = rests().length;
    await expect(blind.refund(refund)).rejects.toThrow(RedsysUnknownOutcome);
    await expect(blind.lookup!({ reference: refund.reference, signal, kind: 'refund' })).rejects.toThrow(RedsysUnknownOutcome);
    expect(rests().length).toBe(sent);
    expect(refundsOf(order, 1)).toHaveLength(1);
  });

  it('after a restart, the count kept before sending settles an unknown refund: found when made, sent again once when not; nothing kept is attention', async () => {
    const kept = operationsInMemory();
    const [first] = redsysGateways(settings('1', true), { operations: kept });
    const lost = await unansweredRefund(first, 'lose', 1000);
    const failed = await unansweredRefund(first, 'fail', 700);
    // A process started after a crash: nothing in its memory but what was kept.
    const [restarted] = redsysGateways(settings('1', true), { operations: kept });
    const sent = rests().length;
    expect(await restarted.lookup!({ reference: lost.refund.reference, signal, kind: 'refund' })).toEqual({ status: 'succeeded', reference: `${lost.order}:3:1`, card: null });
    expect(await restarted.lookup!({ reference: failed.refund.reference, signal, kind: 'refund' })).toEqual({ status: 'not_found' });
    expect(await restarted.refund(lost.refund)).toEqual({ ok: true, reference: `${lost.order}:3:1` });
    expect(rests().length).toBe(sent);
    expect(await restarted.refund(failed.refund)).toMatchObject({ ok: true });
    expect(rests().length).toBe(sent + 1);
    expect([refundsOf(lost.order).length, refundsOf(failed.order).length]).toEqual([1, 1]);
    const [forgetful] = redsysGateways(settings('1', true));
    await expect(forgetful.lookup!({ reference: lost.refund.reference, signal, kind: 'refund' })).rejects.toThrow(RedsysUnknownOutcome);
    // Nothing kept, but the order can be asked: a refund of that amount there cannot be told from ours (attention); none there, ours was not made.
    const { payment } = lost.refund;
    await expect(forgetful.lookup!({ reference: lost.refund.reference, signal, kind: 'refund', payment, amount: 1000 })).rejects.toThrow(RedsysUnknownOutcome);
    expect(await forgetful.lookup!({ reference: reference(), signal, kind: 'refund', payment, amount: 400 })).toEqual({ status: 'not_found' });
    expect(await forgetful.lookup!({ reference: reference(), signal, kind: 'capture', payment, amount: 1000 })).toEqual({ status: 'not_found' });
    // Without the query service nothing can be asked.
    const [noQuery] = redsysGateways(settings('2', false));
    await expect(noQuery.lookup!({ reference: reference(), signal, kind: 'refund', payment, amount: 400 })).rejects.toThrow(RedsysUnknownOutcome);
  });

  it('sends nothing when what it would send cannot be kept first', async () => {
    const [unkept] = redsysGateways(settings('1', true), { operations: { keep: () => Promise.reject(new Error('database down')), recall: async () => undefined } });
    const payment = await paid(card);
    const sent = rests().length;
    expect(await unkept.refund(action(payment, 100))).toMatchObject({ outcome: 'not_acted', reason: expect.stringContaining('nothing was sent') });
    expect(rests().length).toBe(sent);
  });

  it('says not_acted, and sends nothing, when the query service cannot count before a first send', async () => {
    const payment = await paid(card);
    const sent = rests().length;
    double.failNext('query');
    expect(await card.refund(action(payment, 100))).toMatchObject({ outcome: 'not_acted', reason: expect.stringContaining('nothing was sent') });
    expect(rests().length).toBe(sent);
  });

  it('keeps one operation in flight per order: a second refund of the same order meanwhile is not_acted, not sent', async () => {
    const payment = await paid(card);
    const [first, second] = await Promise.all([card.refund(action(payment, 100)), card.refund(action(payment, 100))]);
    expect(first).toMatchObject({ ok: true });
    expect(second).toMatchObject({ outcome: 'not_acted', reason: expect.stringContaining('in flight') });
    expect(refundsOf(payment.split(':')[0]!)).toHaveLength(1);
  });

  it('throws RedsysMismatch when an answer does not match its request', async () => {
    const payment = await paid(card);
    double.rewriteNext((p) => ({ ...p, Ds_Amount: '999' }));
    await expect(card.refund(action(payment, 100))).rejects.toThrow(RedsysMismatch);
    // Made at Redsys but not believed: the order now waits for attention, so the next case takes another payment.
    expect(await card.refund(action(payment, 100))).toMatchObject({ outcome: 'not_acted', reason: expect.stringContaining('unknown outcome') });
    double.rewriteNext((p) => ({ ...p, Ds_Order: '1234abcdefgh' }));
    await expect(card.refund(action(await paid(card), 100))).rejects.toThrow(/Ds_Order/);
  });
});

describe('Redsys connector: stored cards and lookups', () => {
  it('charges a stored card with the MIT fields; a resend of the same reference meets SIS0051 and is believed only when the query shows the same amount and currency', async () => {
    const method = await paid(card, { capture: false });
    const charge = { reference: reference(), signal, method, amount: 1200, currency: 'EUR', initiator: 'merchant' as const };
    expect(await card.charge(charge)).toMatchObject({ outcome: 'approved', reference: expect.stringMatching(/:978:/), authentication: { status: 'exempt', method: 'merchant_initiated' } });
    expect(rests().at(-1)!.params).toMatchObject({ DS_MERCHANT_IDENTIFIER: method.split(':')[2], DS_MERCHANT_COF_INI: 'N', DS_MERCHANT_COF_TXNID: method.split(':')[3], DS_MERCHANT_EXCEP_SCA: 'MIT', DS_MERCHANT_DIRECTPAYMENT: 'true' });
    expect(await card.charge(charge)).toMatchObject({ outcome: 'approved' });
    expect(rests().at(-1)!.errorCode).toBe('SIS0051');
    await expect(card.charge({ ...charge, amount: 1300 })).rejects.toThrow(RedsysMismatch);
    expect(await card.charge({ ...charge, reference: reference(), method: 'not-a-card' })).toMatchObject({ outcome: 'not_acted' });
  });

  it('stores a card on Redsys’s page in a validation of amount 0; only the notification saves it, never a lookup; Bizum stores none', async () => {
    const store = { reference: reference(), signal, fields: {}, returnUrl: 'https://pay.example/pay/sav_1/return/gc_1/', language: 'es' };
    const challenge = (await card.store!(store)) as Exclude<Awaited<ReturnType<NonNullable<RedsysGateway['store']>>>, { outcome: 'not_acted' }>;
    expect(challenge).toMatchObject({ outcome: 'challenge', challenge: challenge.processorId, redirect: { url: `${double.url}/sis/realizarPago`, method: 'POST' } });
    expect(decodeParameters(challenge.redirect.fields!.Ds_MerchantParameters!)).toMatchObject({
      DS_MERCHANT_AMOUNT: '0', DS_MERCHANT_TRANSACTIONTYPE: '0', DS_MERCHANT_CURRENCY: '978', DS_MERCHANT_ORDER: challenge.processorId, DS_MERCHANT_MERCHANTDATA: store.reference,
      DS_MERCHANT_IDENTIFIER: 'REQUIRED', DS_MERCHANT_COF_INI: 'S', DS_MERCHANT_COF_TYPE: 'C', DS_MERCHANT_URLOK: store.returnUrl, DS_MERCHANT_CONSUMERLANGUAGE: '001',
    });
    const before = receiver.received.length;
    await decideOnPage(challenge.redirect.url, challenge.redirect.fields!, 'approve');
    const notified = receiver.received[before]!;
    const saved = await card.notification!(notified);
    const stored = double.books.find(double.terminals[0]!, challenge.processorId)!.stored!;
    expect(saved).toMatchObject({ reference: store.reference, result: { status: 'succeeded', reference: `${challenge.processorId}:978:${stored.identifier}:${stored.cofTxnid}` } });
    // A validation approved without the card's identifier stored nothing; the query service cannot tell: a store is never looked up.
    const bare = tampered(notified, ({ Ds_Merchant_Identifier: _i, Ds_Merchant_Cof_Txnid: _t, ...rest }) => rest);
    const resigned = Object.fromEntries(new URLSearchParams(bare.body.toString()));
    const params = decodeParameters(resigned.Ds_MerchantParameters!)!;
    const signedAgain = { ...resigned, Ds_Signature: sign('HMAC_SHA256_V1', PUBLIC_TEST_KEY, String(params.Ds_Order), resigned.Ds_MerchantParameters!) };
    expect(await card.notification!({ ...bare, body: Buffer.from(new URLSearchParams(signedAgain).toString()) })).toMatchObject({ result: { status: 'failed', reason: 'declined' } });
    await expect(card.lookup!({ reference: store.reference, signal, processorId: challenge.processorId, kind: 'store' })).rejects.toThrow(RedsysUnknownOutcome);
    // Card numbers never go to Redsys through us, a save needs a page to come back to, and Bizum keeps no cards.
    expect(await card.store!({ ...store, reference: reference(), fields: { card_number: '4548812049400004' } })).toMatchObject({ outcome: 'not_acted' });
    expect(await card.store!({ reference: reference(), signal, fields: {} })).toMatchObject({ outcome: 'not_acted' });
    expect(bizum.store).toBeUndefined();
  });

  it('looks a payment up through the query service by its order (after a restart too), and says not_found for one never paid', async () => {
    const { input, redirect } = await completed(card);
    const [fresh] = redsysGateways(settings('1', true));
    expect(await fresh.lookup!({ reference: input.reference, signal })).toMatchObject({ status: 'succeeded', reference: `${redirect.processorId}:978` });
    expect(await card.lookup!({ reference: input.reference, signal, processorId: redirect.processorId, kind: 'pay' })).toMatchObject({ status: 'succeeded' });
    const abandoned = (await pay(card)) as RedirectResult;
    expect(await card.lookup!({ reference: reference(), signal, processorId: abandoned.processorId, kind: 'pay' })).toEqual({ status: 'not_found' });
    // Without the query service, a payment on Redsys's page is told by its notification alone (the service waits for it); a REST charge's stays for a person.
    await expect(blind.lookup!({ reference: input.reference, signal, kind: 'pay' })).rejects.toThrow(GatewayNotificationOnly);
    await expect(blind.lookup!({ reference: input.reference, signal, kind: 'charge' })).rejects.toThrow(RedsysUnknownOutcome);
  });

  it("does not believe a payment of our order number that is not ours: another amount is a mismatch, another reference goes to attention", async () => {
    const pageFor = (redirect: RedirectResult, amount: string, merchantData: string) => {
      const params = { ...(decodeParameters(redirect.redirect.fields.Ds_MerchantParameters) as Record<string, string>), DS_MERCHANT_AMOUNT: amount, DS_MERCHANT_MERCHANTDATA: merchantData };
      return decideOnPage(redirect.redirect.url, signedFields(params), 'approve');
    };
    // Our order number, paid on Redsys with another amount (what a colliding order, or SIS0051 on our resend, would show).
    const mine = { reference: reference(), signal, amount: 2500, currency: 'EUR', capture: true, fields: {} };
    const redirect = (await card.pay(mine)) as RedirectResult;
    await pageFor(redirect, '100', mine.reference);
    await expect(card.lookup!({ reference: mine.reference, signal, processorId: redirect.processorId, kind: 'pay' })).rejects.toThrow(RedsysMismatch);
    const theirs = { ...mine, reference: reference() };
    const taken = (await card.pay(theirs)) as RedirectResult;
    await pageFor(taken, '2500', 'gc_someone-else');
    await expect(card.lookup!({ reference: theirs.reference, signal, processorId: taken.processorId, kind: 'pay' })).rejects.toThrow(RedsysUnknownOutcome);
  });

  it('finds whether the bank enabled the query service on a terminal', async () => {
    expect(await card.probeQueryService({ signal })).toEqual({ available: true });
    expect(await blind.probeQueryService({ signal })).toEqual({ available: false, errorCode: 'XML9905' });
  });
});

describe('Redsys connector: HMAC_SHA512_V2 end to end (against the double, which signs the same way)', () => {
  it('pays, verifies the V2 notification, refunds with a V2-signed answer, and refuses a V1 notification', async () => {
    const v2Double = await startRedsysDouble({ terminals: [{ merchantCode: '999008881', terminal: '1', secretKey: PUBLIC_TEST_KEY, signatureVersion: 'HMAC_SHA512_V2', queryService: true }] });
    try {
      const [v2] = redsysGateways({ ...settings('1', true), apiUrl: v2Double.url, signature_version: 'HMAC_SHA512_V2' });
      const redirect = (await pay(v2)) as RedirectResult;
      expect(redirect.redirect.fields).toMatchObject({ Ds_SignatureVersion: 'HMAC_SHA512_V2', Ds_Signature: expect.stringMatching(/^[A-Za-z0-9_-]{86}$/) });
      const before = receiver.received.length;
      await decideOnPage(redirect.redirect.url, redirect.redirect.fields, 'approve');
      const notified = receiver.received[before]!;
      const result = await v2.notification!(notified);
      expect(result).toMatchObject({ result: { status: 'succeeded', reference: `${redirect.processorId}:978` } });
      expect(await v2.refund(action(`${redirect.processorId}:978`, 100))).toMatchObject({ ok: true });
      // The same terminal's V1 connector takes no V2 notification: no version but the configured one.
      const [v1] = redsysGateways({ ...settings('1', true), apiUrl: v2Double.url });
      expect(await v1.notification!(notified)).toBeNull();
    } finally {
      await v2Double.close();
    }
  });
});
