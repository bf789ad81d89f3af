import { describe, expect, it } from 'vitest';
import { JOB_NAMES } from '../../server/jobs';
import { TEST_CARDS } from '../../server/domain/test-cards';
import { setPricing } from '../../server/store/balance';
import { disableFailingEndpoint } from '../../server/store/webhook-endpoints';
import { member } from './dashboard';
import { confirmNewAccount, IBANS } from './documents';
import { type Client, ENGINES, testClock } from './harness';
import { useOwnService } from './ledger';
import { paidTransaction, payToken, priced } from './pay';
import { startReceiver } from './receiver';

// The dashboard's home: payments, their net, refunds, disputes and failed payments of today, the last
// 7 and the last 30 UTC days per currency, counted by the database; the 30 days' chart and
// its table; what needs attention. Made with real payments on the payment page at chosen
// moments of the service's clock (noon UTC, so no day boundary falls inside the test), and
// checked against another environment's sales, which must not count.

const DAY = 86_400_000;
const OPEN_DELAY = 3_000;

/** The text of one cell of the totals table: a currency's kind in a period (1, 7 or 30 days). */
function cell(html: string, currency: string, kind: string, period: 1 | 7 | 30): string {
  const start = html.indexOf(`data-currency="${currency}"`);
  expect(start, `no figures in ${currency}`).toBeGreaterThan(-1);
  const next = html.indexOf('data-currency="', start + 1);
  const block = html.slice(start, next === -1 ? undefined : next);
  const row = new RegExp(`<tr data-kind="${kind}">([\\s\\S]*?)</tr>`).exec(block)?.[1] ?? '';
  return new RegExp(`data-period="${period}">([^<]*)</td>`).exec(row)?.[1] ?? '';
}

/** One currency's chart: from its figure to the figure's end. */
function chartOf(html: string, currency: string): string {
  const start = html.indexOf(`data-testid="chart-${currency}"`);
  expect(start, `no chart in ${currency}`).toBeGreaterThan(-1);
  return html.slice(start, html.indexOf('</figure>', start));
}

/** The chart's bars: each one's day, its tooltip (date and value) and the value written on it. */
const bars = (html: string, currency: string) =>
  [...chartOf(html, currency).matchAll(/<g data-day="([^"]+)"><rect class="bar"[^>]*><title>([^<]*)<\/title><\/rect><text[^>]*>([^<]*)<\/text><\/g>/g)].map((m) => [m[1], m[2], m[3]]);

/** The texts of one of the chart's axes, in order: `money` (bottom to top) or `date` (oldest first). */
const texts = (html: string, currency: string, axis: 'money' | 'date') => [...chartOf(html, currency).matchAll(new RegExp(`<text class="${axis}"[^>]*>([^<]*)</text>`, 'g'))].map((m) => m[1]);

describe.each(ENGINES)('dashboard home on %s', (engine) => {
  const clock = testClock();
  const svc = useOwnService(engine, { now: clock.now, env: { SANDBOX_DISPUTE_DELAY_MS: String(OPEN_DELAY), ALLOW_PRIVATE_NOTIFY_URLS: 'true' } });
  const run = (job: string) => svc.t.service.jobs.runOnce(job);
  /** Moves the clock to noon UTC `daysAgo` days before today. */
  const at = (daysAgo: number) => {
    clock.reset();
    const today = new Date();
    const noon = Date.UTC(today.getUTCFullYear(), today.getUTCMonth(), today.getUTCDate(), 12);
    clock.advance(noon - Date.now() - daysAgo * DAY);
  };
  const pay = (api: Client, currency: string, price: number) => paidTransaction(api, priced(currency, price));

  it('counts today, 7 and 30 days per currency, net, refunds, disputes and failures; draws the chart; lists what needs attention; nothing of another environment', async () => {
    const { api, t } = svc;
    const other = await t.newEnvironment('Other shop');
    // A fee on each charge (25 cents), none on refunds; a dispute's fee is the default €15.
    const none = { percentE2: 0n, fixed: 0n };
    await setPricing(t.service.deps.database.db, api.keys.environment_id, { charge: { percentE2: 0n, fixed: 25n }, refund: none, settlementDelayDays: 0 }, new Date());
    const hook = await startReceiver();
    hook.script(...Array<number>(50).fill(500));
    const failing = (await api.post('/webhook_endpoint/', { url: hook.url, enabled_events: ['*'] })).body;
    const disabled = (await api.post('/webhook_endpoint/', { url: 'https://gone.shop.example/hook', enabled_events: ['transaction.cancelled'] })).body;

    at(40);
    await pay(api, 'EUR', 100); // outside the 30 days
    at(20);
    await pay(api, 'EUR', 10);
    at(3);
    await pay(api, 'EUR', 20);
    await pay(api, 'USD', 7);
    at(0);
    const { sale } = await pay(api, 'EUR', 5);
    expect((await api.post(`/sale/${sale.id}/refund/`, { amount: 2 })).status).toBe(200);
    const refused = await api.post('/transaction/', priced('EUR', 30));
    await payToken(api.url, refused.body.token, TEST_CARDS.declined);
    const disputedTx = await api.post('/transaction/', priced('EUR', 50));
    expect(await payToken(api.url, disputedTx.body.token, TEST_CARDS.disputedFraudulent)).toBe(200);
    await pay(other, 'EUR', 1000);
    await run(JOB_NAMES.balance);
    clock.advance(OPEN_DELAY);
    expect(await run(JOB_NAMES.sandboxDisputes)).toBe(1);
    await run(JOB_NAMES.delivery);
    const db = t.service.deps.database.db;
    expect(await disableFailingEndpoint(db, disabled.id, clock.now().toISOString(), clock.now())).toBe(true);

    const { browser } = await member(t, api, 'viewer');
    const home = await browser.get('/dashboard/');
    expect(home.status).toBe(200);
    const html = home.text;
    // What the overview showed before stays.
    expect(html).toContain(api.keys.public_key);
    expect(html).toContain('Transactions in this environment: 7');

    expect([1, 7, 30].map((p) => cell(html, 'EUR', 'payments', p as 1 | 7 | 30))).toEqual(['€55.00 (2)', '€75.00 (3)', '€85.00 (4)']);
    // Net: the balance transactions' own net. Today €5 and €50 paid less 25 cents each, €2
    // refunded, the €50 disputed and its €15 fee taken: −€12.50; then €20 and €10 less 25 cents.
    expect([1, 7, 30].map((p) => cell(html, 'EUR', 'net', p as 1 | 7 | 30))).toEqual(['-€12.50', '€7.25', '€17.00']);
    expect([1, 7, 30].map((p) => cell(html, 'USD', 'net', p as 1 | 7 | 30))).toEqual(['$0.00', '$6.75', '$6.75']);
    expect([1, 7, 30].map((p) => cell(html, 'EUR', 'refunds', p as 1 | 7 | 30))).toEqual(['€2.00 (1)', '€2.00 (1)', '€2.00 (1)']);
    expect([1, 7, 30].map((p) => cell(html, 'EUR', 'disputes', p as 1 | 7 | 30))).toEqual(['€50.00 (1)', '€50.00 (1)', '€50.00 (1)']);
    expect([1, 7, 30].map((p) => cell(html, 'EUR', 'failed', p as 1 | 7 | 30))).toEqual(['€30.00 (1)', '€30.00 (1)', '€30.00 (1)']);
    // Each currency apart.
    expect([1, 7, 30].map((p) => cell(html, 'USD', 'payments', p as 1 | 7 | 30))).toEqual(['$0.00 (0)', '$7.00 (1)', '$7.00 (1)']);

    // The chart: a figure, its caption, an image labelled with its summary, the numbers in a table.
    expect(html).toMatch(/<figure class="chart" data-testid="chart-EUR"><figcaption id="chart-EUR">Payments in EUR per day, last 30 days \(UTC\)<\/figcaption><div class="scroll" tabindex="0" role="region" aria-label="Bar chart of payments in EUR"><svg[^>]*role="img"/);
    expect(html).toContain('aria-label="Bar chart of payments in EUR per day over the last 30 days: €85.00 in 4 payments; the highest day was');
    expect(html.match(/<rect class="bar"/g)).toHaveLength(4); // EUR: today, 3 and 20 days ago; USD: 3 days ago
    // Each paid day's bar carries its date and value, and its value written on it; the
    // axes say money (0, half, the top) and dates (today and every 7th day before), in the
    // reader's language.
    const day = (back: number) => new Date(clock.now().getTime() - back * DAY).toISOString().slice(0, 10);
    const label = (back: number, lang = 'en') => new Intl.DateTimeFormat(lang, { day: 'numeric', month: 'short', timeZone: 'UTC' }).format(new Date(clock.now().getTime() - back * DAY));
    expect(bars(html, 'EUR')).toEqual([
      [day(20), `${label(20)}: €10.00 (1)`, '€10.00'],
      [day(3), `${label(3)}: €20.00 (1)`, '€20.00'],
      [day(0), `${label(0)}: €55.00 (2)`, '€55.00'],
    ]);
    expect(bars(html, 'USD')).toEqual([[day(3), `${label(3)}: $7.00 (1)`, '$7.00']]);
    expect(texts(html, 'EUR', 'money')).toEqual(['€0.00', '€50.00', '€100.00']);
    expect(texts(html, 'USD', 'money')).toEqual(['$0.00', '$5.00', '$10.00']);
    expect(texts(html, 'EUR', 'date')).toEqual([28, 21, 14, 7, 0].map((back) => label(back)));
    // The table: the 30 days by their date, each kind's volume and number.
    const rows = [...chartOf(html, 'EUR').matchAll(/<th scope="row"><time datetime="([^"]+)">([^<]+)<\/time><\/th><td>([^<]+)<\/td><td>([^<]+)<\/td><td>([^<]+)<\/td><td>([^<]+)<\/td><td>([^<]+)<\/td>/g)];
    expect(rows).toHaveLength(30);
    expect(rows.map((r) => r[1])).toEqual(Array.from({ length: 30 }, (_, i) => day(29 - i)));
    const byDay = Object.fromEntries(rows.map((r) => [r[1], r.slice(2)]));
    expect(byDay[day(0)]).toEqual([label(0), '€55.00 (2)', '-€12.50', '€2.00 (1)', '€50.00 (1)', '€30.00 (1)']);
    expect(byDay[day(3)]).toEqual([label(3), '€20.00 (1)', '€19.75', '€0.00 (0)', '€0.00 (0)', '€0.00 (0)']);
    expect(byDay[day(20)]).toEqual([label(20), '€10.00 (1)', '€9.75', '€0.00 (0)', '€0.00 (0)', '€0.00 (0)']);
    expect(byDay[day(1)]).toEqual([label(1), '€0.00 (0)', '€0.00', '€0.00 (0)', '€0.00 (0)', '€0.00 (0)']);
    // In Spanish, the dates and the money as Spanish writes them.
    const { browser: lector } = await member(t, api, 'viewer', { 'accept-language': 'es' });
    const es = (await lector.get('/dashboard/')).text;
    expect(texts(es, 'EUR', 'date')).toEqual([28, 21, 14, 7, 0].map((back) => label(back, 'es')));
    expect(label(0, 'es')).not.toBe(label(0));
    expect(bars(es, 'EUR').map((b) => b[2])).toEqual(['10,00\u00a0€', '20,00\u00a0€', '55,00\u00a0€']);

    // Needs attention: the dispute with its deadline, the failing and the disabled endpoints.
    const dispute = (await api.get('/dispute/')).body.results[0];
    expect(dispute.status).toBe('needs_response');
    const attention = /data-testid="attention">([\s\S]*?)<\/section>/.exec(html)![1]!;
    expect(attention).toContain('€50.00: evidence due by');
    expect(attention.match(/data-testid="attention-dispute"/g)).toHaveLength(1);
    expect(attention).toContain(`${failing.url}: recent deliveries failed`);
    expect(attention).toContain(`<a href="/dashboard/webhook-endpoints/${failing.id}/">`);
    expect(attention).toContain(`${disabled.url}: disabled, every delivery failed for 3 days`);

    // Recent activity: the newest events first, each in words with its amount, its time and a
    // link to it, and the way to all of them; another environment's never.
    const activity = /data-testid="activity">([\s\S]*?)<\/section>/.exec(html)![1]!;
    const newest = (await api.get('/event/?page_size=8')).body.results as { id: string; type: string }[];
    expect(newest).toHaveLength(8);
    expect([...activity.matchAll(/<a href="\/dashboard\/events\/([^/]+)\/">/g)].map((m) => m[1])).toEqual(newest.map((e) => e.id));
    expect(activity).toContain('<code class="event-type">dispute.created</code>');
    expect(activity).toMatch(/<time datetime="[^"]+">[^<]+<\/time> <a href="\/dashboard\/events\/[^"]+">Dispute opened: €50\.00 <code class="event-type">dispute\.created<\/code><\/a>/);
    expect(activity).toContain('<a href="/dashboard/events/">All events</a>');

    // The other environment sees its own sale only, and nothing to attend to.
    const theirs = (await (await member(t, other, 'owner')).browser.get('/dashboard/')).text;
    expect(cell(theirs, 'EUR', 'payments', 30)).toBe('€1,000.00 (1)');
    expect(theirs).not.toContain('data-currency="USD"');
    expect(theirs).toContain('Nothing needs your attention.');
    expect(html).not.toContain('€1,000.00');
    const theirEvents = (await other.get('/event/')).body.results as { id: string }[];
    expect(theirEvents.length).toBeGreaterThan(0);
    for (const e of theirEvents) expect(activity).not.toContain(e.id);
    await hook.close();
  });

  it('lists payouts the bank refused in the last 7 days and a new bank account holding payouts, each a link; not another environment\'s', async () => {
    at(0);
    const { t } = svc;
    const db = t.service.deps.database.db;
    /** A payout of all that is available to an IBAN the sandbox payout gateway refuses (it ends 0000). */
    const refusedPayout = async (shop: Client) => {
      await setPricing(db, shop.keys.environment_id, { charge: { percentE2: 0n, fixed: 0n }, refund: { percentE2: 0n, fixed: 0n }, settlementDelayDays: 0 }, new Date());
      await pay(shop, 'EUR', 40);
      await run(JOB_NAMES.balance);
      expect((await shop.patch('/payout_settings/', { iban: 'DE94370400440532010000', schedule: 'manual' })).status).toBe(200);
      await confirmNewAccount(db, shop.keys.environment_id);
      const made = await shop.post('/merchant_payout/', { currency: 'EUR' });
      expect(made.status, made.text).toBe(201);
      while ((await run(JOB_NAMES.merchantPayouts)) > 0);
      const payout = (await shop.get(`/merchant_payout/${made.body.id}/`)).body;
      expect(payout.status).toBe('failed');
      return payout as { id: string };
    };
    const shop = await t.newEnvironment('Payout shop');
    const other = await t.newEnvironment('Other payout shop');
    const failed = await refusedPayout(shop);
    const theirs = await refusedPayout(other);
    // A changed bank account holds payouts until an owner confirms it from the email.
    expect((await shop.patch('/payout_settings/', { iban: IBANS.ES, schedule: 'manual' })).status).toBe(200);

    /** Needs attention, as a viewer signed in now sees it. */
    const attentionOf = async (of = shop) => /data-testid="attention">([\s\S]*?)<\/section>/.exec((await (await member(t, of, 'viewer')).browser.get('/dashboard/')).text)![1]!;
    const attention = await attentionOf();
    expect(attention).toContain('<h3>Payouts to your bank account</h3>');
    expect(attention.match(/data-testid="attention-payout"/g)).toHaveLength(1);
    expect(attention).toMatch(
      new RegExp(`<li data-testid="attention-payout"><a href="/dashboard/payouts/${failed.id}/">€40\\.00 to the account ending 0000, [^<]+: Failed: the money is back in your balance</a> \\(the bank said: sandbox: the bank refused the account \\(IBAN ending in 0000\\)\\)</li>`),
    );
    expect(attention).toMatch(/<li data-testid="attention-payout-held"><a href="\/dashboard\/balance\/">New bank account ending 1332: payouts held until an owner confirms it from the email, or until [^<]+\.<\/a><\/li>/);
    expect(attention).not.toContain(theirs.id);
    expect(attention).not.toContain('Nothing needs your attention.');
    // The other shop sees its own failed payout, and no hold (its account was confirmed).
    const otherAttention = await attentionOf(other);
    expect(otherAttention).toContain(`/dashboard/payouts/${theirs.id}/`);
    expect(otherAttention).not.toContain(failed.id);
    expect(otherAttention).not.toContain('attention-payout-held');

    // Eight days later (a new sign-in: sessions last 12 hours) the refusal is old news, the
    // payouts list keeps it, and the hold has ended by itself.
    clock.advance(8 * DAY);
    const later = await attentionOf();
    expect(later).not.toContain('attention-payout');
    expect(later).toContain('Nothing needs your attention.');
  });

  it('a new environment shows no figures, and says the days are UTC', async () => {
    at(0);
    const fresh = await svc.t.newEnvironment('Fresh shop');
    const page = (await (await member(svc.t, fresh, 'viewer')).browser.get('/dashboard/')).text;
    expect(page).toContain('Nothing happened in the last 30 days.');
    expect(page).toContain('Counted per day in UTC');
    expect(page).toContain('Nothing needs your attention.');
    expect(page).toContain('id="first-steps"');
  });
});
