import Stripe from 'stripe';
import { describe, expect, it } from 'vitest';
import { JOB_NAMES } from '../../server/jobs';
import { inbox, member } from './dashboard';
import { FILES } from './documents';
import { ENGINES } from './harness';
import { paidByCheckout, redeliver, useStripeShop } from './stripe-shop';

// Disputes at Stripe (docs/disputes.md "Disputes at Stripe"), over real HTTP against the
// Stripe double: `charge.dispute.*` become our dispute on the sale, read again by id; a
// Stripe-settled sale's dispute moves nothing in our balance and pays no dispute fee of
// ours; evidence saved as a draft is staged at Stripe (`submit: false`), its file uploaded
// to Stripe's files host, and sent with `submit: true` only when the merchant submits; the
// bank's decision comes back by event. The double refuses evidence once it was submitted.

const DAY = 86_400_000;
const pdf = { name: 'delivery.pdf', content_type: 'application/pdf', data: FILES['application/pdf'].bytes.toString('base64') };

describe.each(ENGINES)('Stripe disputes on %s', (engine) => {
  const shop = useStripeShop(engine);
  const run = (job: string) => shop.t.service.jobs.runOnce(job);
  const disputesOf = async (sale: string) => (await shop.api.get(`/dispute/?sale=${sale}`)).body.results as any[];
  const balanceOf = async (sale: string) => (await shop.api.get(`/balance_transaction/?sale=${sale}`)).body.results as any[];
  const disputeRequests = (id: string) => shop.double.requests.filter((r) => r.path.startsWith(`/v1/disputes/${id}`) && r.method === 'POST');
  const stripe = () => {
    const url = new URL(shop.double.url);
    return new Stripe(shop.keys.secret_key, { apiVersion: '2026-10-28.endive', host: url.hostname, port: url.port, protocol: 'http', maxNetworkRetries: 0, telemetry: false });
  };

  it('opened at Stripe: our dispute on the sale, no debit of our balance nor our fee; evidence staged, then submitted, at Stripe; won by the bank', async () => {
    const { sale, charge } = await paidByCheckout(shop);
    const { dispute, deliveries } = await shop.double.openDispute(charge, { reason: 'product_not_received' });
    expect(deliveries.map((d) => [d.type, d.status])).toEqual([
      ['charge.dispute.created', 204],
      ['charge.dispute.funds_withdrawn', 204],
    ]);
    const [ours, ...more] = await disputesOf(sale.id);
    expect(more).toHaveLength(0);
    expect(ours).toMatchObject({ sale: sale.id, amount: 17, currency: 'EUR', fee: 0, reason: 'product_not_received', status: 'needs_response', submitted: null, closed: null });
    expect(ours.evidence_due_by).toBe(new Date(dispute.evidence_details.due_by * 1000).toISOString());
    expect((await shop.api.get(`/sale/${sale.id}/`)).body).toMatchObject({ disputed: true, refundable: 0 });
    expect((await shop.api.post(`/sale/${sale.id}/refund/`, { amount: 1 })).status).toBe(409);
    // Replayed: one dispute. Read again by id at Stripe.
    for (const d of deliveries) expect((await redeliver(d)).status).toBe(204);
    expect(await disputesOf(sale.id)).toHaveLength(1);
    expect(shop.double.requests.some((r) => r.method === 'GET' && r.path === `/v1/disputes/${dispute.id}`)).toBe(true);
    // Stripe settles the sale: nothing of it, nor of its dispute, in our balance.
    await run(JOB_NAMES.balance);
    expect(await balanceOf(sale.id)).toEqual([]);

    // A draft: saved here at once, staged at Stripe by the job (submit: false), its file on the files host.
    const draft = await shop.api.post(`/dispute/${ours.id}/evidence/`, { product_description: 'A mug, delivered 3 January', customer_communication: 'Customer: thanks, it arrived', files: [pdf] });
    expect(draft.status, draft.text).toBe(200);
    expect(draft.body).toMatchObject({ status: 'needs_response', evidence: { product_description: 'A mug, delivered 3 January' } });
    expect(await run(JOB_NAMES.processorDisputes)).toBe(1);
    const upload = shop.double.requests.filter((r) => r.path === '/v1/files');
    expect(upload.map((r) => [r.host, r.method, r.status, r.params.purpose])).toEqual([['files', 'POST', 200, 'dispute_evidence']]);
    const [staged] = disputeRequests(dispute.id);
    expect(staged!.params).toMatchObject({ submit: 'false', evidence: { product_description: 'A mug, delivered 3 January', uncategorized_text: 'Customer communication:\nCustomer: thanks, it arrived' } });
    const atStripe = shop.double.books.disputes.get(dispute.id)!;
    expect(atStripe).toMatchObject({ status: 'needs_response', evidence_details: { has_evidence: true, submission_count: 0 } });
    expect(shop.double.books.files.get(atStripe.evidence.uncategorized_file)).toMatchObject({ purpose: 'dispute_evidence', type: 'pdf', size: FILES['application/pdf'].bytes.length });
    // Told once: the next round sends nothing.
    expect(await run(JOB_NAMES.processorDisputes)).toBe(0);

    // Submitted by the merchant: under review here at once, and at Stripe with submit: true.
    const submitted = await shop.api.post(`/dispute/${ours.id}/submit/`, {});
    expect(submitted.body).toMatchObject({ status: 'under_review' });
    expect(await run(JOB_NAMES.processorDisputes)).toBe(1);
    expect(disputeRequests(dispute.id).map((r) => r.params.submit)).toEqual(['false', 'true']);
    expect(disputeRequests(dispute.id)[1]!.params.evidence).toMatchObject({ uncategorized_file: atStripe.evidence.uncategorized_file });
    expect(shop.double.books.disputes.get(dispute.id)).toMatchObject({ status: 'under_review', evidence_details: { submission_count: 1 } });
    expect(shop.double.requests.filter((r) => r.path === '/v1/files')).toHaveLength(1);
    // Stripe takes no more evidence, as we do not.
    expect((await shop.api.post(`/dispute/${ours.id}/evidence/`, { uncategorized_text: 'more' })).status).toBe(409);
    const refused = await stripe()
      .disputes.update(dispute.id, { evidence: { uncategorized_text: 'more' }, submit: false })
      .then(
        () => null,
        (e: Stripe.errors.StripeError) => e,
      );
    expect(refused).toMatchObject({ statusCode: 400, type: 'StripeInvalidRequestError' });

    // The bank rules for the merchant: won; nothing was debited, so nothing comes back.
    const closed = await shop.double.decideDispute(dispute.id, 'won');
    expect(closed.map((d) => [d.type, d.status])).toEqual([
      ['charge.dispute.closed', 204],
      ['charge.dispute.funds_reinstated', 204],
    ]);
    expect((await disputesOf(sale.id))[0]).toMatchObject({ status: 'won', fee: 0 });
    expect((await shop.api.get(`/sale/${sale.id}/`)).body).toMatchObject({ disputed: true, refundable: 17 });
    await run(JOB_NAMES.balance);
    expect(await balanceOf(sale.id)).toEqual([]);
    const events = ((await shop.api.get('/event/?page_size=100')).body.results as { type: string; data: { id: string } }[]).filter((e) => e.data.id === ours.id).map((e) => e.type);
    expect(events.sort()).toEqual(['dispute.closed', 'dispute.created', 'dispute.updated', 'dispute.updated']);
  });

  it('opened at Stripe: the team is emailed once (docs/dashboard.md "Notifications"), however often Stripe delivers the event', async () => {
    const { email } = await member(shop.t, shop.api, 'owner');
    const { sale, charge } = await paidByCheckout(shop);
    const { deliveries } = await shop.double.openDispute(charge, { reason: 'fraudulent' });
    for (const d of deliveries) expect((await redeliver(d)).status).toBe(204);
    const [ours] = await disputesOf(sale.id);
    const mails = (await inbox(shop.t, email)).filter((m) => /dispute/.test(m.subject ?? ''));
    expect(mails).toHaveLength(1);
    expect(mails[0]!.subject).toMatch(/^New dispute on .+: €17\.00$/);
    expect(mails[0]!.text).toContain('Fraudulent (the cardholder says they did not pay)');
    expect(mails[0]!.text).toContain(`/dashboard/disputes/${ours.id}/`);
  });

  it('events out of order (closed before created) and an inquiry that turns into a dispute: one dispute, Stripe’s status, the money held once', async () => {
    const { sale, charge } = await paidByCheckout(shop);
    shop.double.holdEvents = true;
    const { dispute } = await shop.double.openDispute(charge, { inquiry: true, reason: 'general' });
    await shop.double.decideDispute(dispute.id, 'lost');
    const held = await shop.double.deliverEvents();
    expect(held.map((d) => d.type)).toEqual(['charge.dispute.created', 'charge.dispute.closed']);
    for (const d of [...held].reverse()) expect((await redeliver(d)).status).toBe(204);
    const [ours, ...more] = await disputesOf(sale.id);
    expect(more).toHaveLength(0);
    expect(ours).toMatchObject({ status: 'warning_closed', fee: 0 });
    expect(ours.closed).not.toBeNull();
    expect((await shop.api.get(`/sale/${sale.id}/`)).body).toMatchObject({ disputed: true, refundable: 17 });

    // Another sale: an inquiry, then the bank turns it into a dispute (Stripe's status moves; ours follows with its money).
    const second = await paidByCheckout(shop);
    const opened = await shop.double.openDispute(second.charge, { inquiry: true });
    expect((await disputesOf(second.sale.id))[0]).toMatchObject({ status: 'warning_needs_response' });
    expect((await shop.api.get(`/sale/${second.sale.id}/`)).body).toMatchObject({ refundable: 17 });
    Object.assign(shop.double.books.disputes.get(opened.dispute.id)!, { status: 'needs_response' });
    for (const d of opened.deliveries) expect((await redeliver(d)).status).toBe(204);
    expect((await disputesOf(second.sale.id))[0]).toMatchObject({ status: 'needs_response', fee: 0 });
    expect((await shop.api.get(`/sale/${second.sale.id}/`)).body).toMatchObject({ refundable: 0 });
    // The merchant accepts it: lost here, closed at Stripe.
    expect((await shop.api.post(`/dispute/${(await disputesOf(second.sale.id))[0].id}/accept/`, {})).body).toMatchObject({ status: 'lost' });
    expect(await run(JOB_NAMES.processorDisputes)).toBe(1);
    expect(shop.double.books.disputes.get(opened.dispute.id)).toMatchObject({ status: 'lost' });
    expect(shop.double.requests.some((r) => r.path === `/v1/disputes/${opened.dispute.id}/close` && r.status === 200)).toBe(true);
  });

  it('Stripe’s deadline is Stripe’s: our deadline job leaves its disputes alone; what Stripe does not take is refused before anything is saved', async () => {
    const { sale, charge } = await paidByCheckout(shop);
    await shop.double.openDispute(charge);
    const [ours] = await disputesOf(sale.id);
    shop.clock.advance(8 * DAY);
    await run(JOB_NAMES.disputeDeadlines);
    expect((await disputesOf(sale.id))[0]).toMatchObject({ status: 'needs_response' });
    shop.clock.reset();

    const webp = { name: 'a.webp', content_type: 'image/webp', data: FILES['image/webp'].bytes.toString('base64') };
    const notTaken = await shop.api.post(`/dispute/${ours.id}/evidence/`, { files: [webp] });
    expect(notTaken.status).toBe(400);
    expect(notTaken.body.errors).toEqual([{ path: 'files[0].content_type', message: 'Stripe takes dispute evidence as PDF, PNG or JPEG only' }]);
    const two = await shop.api.post(`/dispute/${ours.id}/evidence/`, { files: [pdf, pdf] });
    expect(two.status).toBe(400);
    expect(two.body.errors[0].path).toBe('files');
    expect((await disputesOf(sale.id))[0].evidence.files).toEqual([]);
  });

  it('a dispute of a payment we do not know is an attention item', async () => {
    const stranger = await stripe().paymentIntents.create({ amount: 2500, currency: 'eur', payment_method: 'pm_card_visa', confirm: true, allowed_payment_method_types: ['card'] });
    const { dispute, deliveries } = await shop.double.openDispute(stranger.latest_charge as string);
    expect(deliveries.map((d) => d.status)).toEqual([204, 204]);
    const items = await shop.t.service.deps.database.db.selectFrom('processor_attention').selectAll().where('subject', '=', dispute.id).execute();
    expect(items).toHaveLength(1);
    expect(items[0]!.why).toContain('a dispute of a payment we do not know');
  });
});
