import Stripe from 'stripe';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type StripeDouble, startStripeDouble } from '../stripe/server';
import { type Receiver, startReceiver } from './receiver';

// Contract tests of the Stripe double's events, disputes and files, through the official
// SDK: the events Stripe sends for refunds, signed as Stripe signs them (the SDK's
// constructEvent verifies them), and each with a request the double must refuse as Stripe
// refuses it.

const API_VERSION = '2026-10-28.endive';
const SECRET = 'whsec_contract_events';
let double: StripeDouble;
let stripe: Stripe;
let hooks: Receiver;

/** The SDK's error of a call that must fail. */
async function refusal(call: Promise<unknown>): Promise<Stripe.errors.StripeError> {
  const error = await call.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(Stripe.errors.StripeError);
  return error as Stripe.errors.StripeError;
}

beforeAll(async () => {
  double = await startStripeDouble();
  const url = new URL(double.url);
  stripe = new Stripe('sk_test_contractEvents', { apiVersion: API_VERSION, host: url.hostname, port: url.port, protocol: 'http', maxNetworkRetries: 0, telemetry: false });
  hooks = await startReceiver();
  double.addWebhookEndpoint(hooks.url, SECRET);
});
afterAll(async () => {
  await double.close();
  await hooks.close();
});

const paid = (amount = 3000) => stripe.paymentIntents.create({ amount, currency: 'eur', payment_method: 'pm_card_visa', confirm: true, allowed_payment_method_types: ['card'] });

/** The events delivered since `from`, each verified with the SDK under the endpoint's secret. */
function eventsSince(from: number): Stripe.Event[] {
  return double.deliveries.slice(from).map((d) => stripe.webhooks.constructEvent(d.payload, d.headers['stripe-signature']!, SECRET));
}

describe('the Stripe double’s refund events (official SDK)', () => {
  it('a refund: refund.created and charge.refunded, signed; a pending one that fails: refund.updated and refund.failed; refusals as Stripe’s', async () => {
    const pi = await paid();
    let from = double.deliveries.length;
    const made = await stripe.refunds.create({ payment_intent: pi.id, amount: 1000, metadata: { reference: 'gc_contract_r1' } });
    const [created, refunded] = eventsSince(from);
    expect(created).toMatchObject({ type: 'refund.created', api_version: API_VERSION, data: { object: { id: made.id, status: 'succeeded', amount: 1000 } } });
    expect(refunded).toMatchObject({ type: 'charge.refunded', data: { object: { id: pi.latest_charge, amount_refunded: 1000 } } });
    // The same body under another secret, or changed, does not verify.
    const d = double.deliveries[from]!;
    expect(() => stripe.webhooks.constructEvent(d.payload, d.headers['stripe-signature']!, 'whsec_other')).toThrow(Stripe.errors.StripeSignatureVerificationError);
    expect(() => stripe.webhooks.constructEvent(d.payload.replace('1000', '1001'), d.headers['stripe-signature']!, SECRET)).toThrow(Stripe.errors.StripeSignatureVerificationError);

    double.books.refundsGoPending = true;
    const pending = await stripe.refunds.create({ payment_intent: pi.id, amount: 2000 });
    double.books.refundsGoPending = false;
    expect(pending.status).toBe('pending');
    from = double.deliveries.length;
    await double.failRefund(pending.id);
    const [updated, failed] = eventsSince(from);
    expect(updated).toMatchObject({ type: 'refund.updated', data: { object: { id: pending.id, status: 'failed' }, previous_attributes: { status: 'pending' } } });
    expect(failed).toMatchObject({ type: 'refund.failed', data: { object: { id: pending.id, status: 'failed', failure_reason: 'expired_or_canceled_card' } } });
    expect(await stripe.refunds.list({ charge: pi.latest_charge as string })).toMatchObject({ data: [{ id: pending.id, status: 'failed' }, { id: made.id, status: 'succeeded' }] });

    // Refused as Stripe refuses: a refund that does not exist, an unknown list parameter, more than is left.
    expect(await refusal(stripe.refunds.retrieve('re_nothere'))).toMatchObject({ statusCode: 404, code: 'resource_missing' });
    expect(await refusal(stripe.refunds.list({ status: 'failed' } as Stripe.RefundListParams))).toMatchObject({ statusCode: 400, code: 'parameter_unknown', param: 'status' });
    expect(await refusal(stripe.refunds.create({ payment_intent: pi.id, amount: 2001 }))).toMatchObject({ statusCode: 400, code: 'amount_too_large' });
  });
});

describe('the Stripe double’s disputes and files host (official SDK)', () => {
  const files = () => {
    const url = new URL(double.filesUrl);
    return new Stripe('sk_test_contractEvents', { apiVersion: API_VERSION, host: url.hostname, port: url.port, protocol: 'http', maxNetworkRetries: 0, telemetry: false });
  };
  const PDF = Buffer.from('%PDF-1.4\n%%EOF\n');

  it('uploads dispute evidence on the files host only, a PDF, PNG or JPEG; refuses anything else as Stripe does', async () => {
    const made = await files().files.create({ purpose: 'dispute_evidence', file: { data: PDF, name: 'receipt.pdf', type: 'application/pdf' } });
    expect(made).toMatchObject({ object: 'file', purpose: 'dispute_evidence', type: 'pdf', size: PDF.length, filename: 'receipt.pdf' });
    expect(double.requests.at(-1)).toMatchObject({ host: 'files', path: '/v1/files', status: 200 });
    expect(await stripe.files.retrieve(made.id)).toMatchObject({ id: made.id, purpose: 'dispute_evidence' });
    // The API host takes no upload (the SDK sends uploads to the one host it is given: here the API's).
    expect(await refusal(stripe.files.create({ purpose: 'dispute_evidence', file: { data: PDF, name: 'r.pdf', type: 'application/pdf' } }))).toMatchObject({ statusCode: 404 });
    const webp = Buffer.concat([Buffer.from('RIFF'), Buffer.alloc(4), Buffer.from('WEBPVP8 ')]);
    expect(await refusal(files().files.create({ purpose: 'dispute_evidence', file: { data: webp, name: 'a.webp', type: 'image/webp' } }))).toMatchObject({ statusCode: 400, param: 'file' });
    expect(await refusal(files().files.create({ purpose: 'birthday_cards', file: { data: PDF, name: 'r.pdf', type: 'application/pdf' } } as never))).toMatchObject({ statusCode: 400, param: 'purpose' });
  });

  it('a dispute: opened by the bank (signed charge.dispute.* events), evidence staged then submitted, refused after submission and with an unknown field or file', async () => {
    const pi = await paid(2500);
    let from = double.deliveries.length;
    const { dispute } = await double.openDispute(pi.latest_charge as string, { reason: 'fraudulent' });
    const [created, withdrawn] = eventsSince(from);
    expect(created).toMatchObject({ type: 'charge.dispute.created', data: { object: { id: dispute.id, status: 'needs_response', amount: 2500, charge: pi.latest_charge, payment_intent: pi.id, reason: 'fraudulent' } } });
    expect(withdrawn).toMatchObject({ type: 'charge.dispute.funds_withdrawn' });
    const file = await files().files.create({ purpose: 'dispute_evidence', file: { data: PDF, name: 'receipt.pdf', type: 'application/pdf' } });

    expect(await refusal(stripe.disputes.update(dispute.id, { evidence: { colour: 'blue' } as Stripe.DisputeUpdateParams.Evidence }))).toMatchObject({ statusCode: 400, code: 'parameter_unknown', param: 'evidence[colour]' });
    expect(await refusal(stripe.disputes.update(dispute.id, { evidence: { uncategorized_file: 'file_nothere' }, submit: false }))).toMatchObject({ statusCode: 400, code: 'resource_missing', param: 'evidence[uncategorized_file]' });
    from = double.deliveries.length;
    const staged = await stripe.disputes.update(dispute.id, { evidence: { product_description: 'A mug', uncategorized_file: file.id }, submit: false });
    expect(staged).toMatchObject({ status: 'needs_response', evidence: { product_description: 'A mug', uncategorized_file: file.id }, evidence_details: { has_evidence: true, submission_count: 0 } });
    expect(eventsSince(from)).toMatchObject([{ type: 'charge.dispute.updated', data: { object: { status: 'needs_response' } } }]);
    const sent = await stripe.disputes.update(dispute.id, { submit: true });
    expect(sent).toMatchObject({ status: 'under_review', evidence: { product_description: 'A mug' }, evidence_details: { submission_count: 1 } });

    // Submitted: Stripe takes no more evidence, and no close.
    expect(await refusal(stripe.disputes.update(dispute.id, { evidence: { product_description: 'A better mug' }, submit: false }))).toMatchObject({ statusCode: 400, type: 'StripeInvalidRequestError' });
    expect(await refusal(stripe.disputes.close(dispute.id))).toMatchObject({ statusCode: 400 });
    from = double.deliveries.length;
    await double.decideDispute(dispute.id, 'lost');
    expect(eventsSince(from).map((e) => [e.type, (e.data.object as Stripe.Dispute).status])).toEqual([['charge.dispute.closed', 'lost']]);
    expect(await refusal(stripe.disputes.retrieve('dp_nothere'))).toMatchObject({ statusCode: 404, code: 'resource_missing' });
  });
});
