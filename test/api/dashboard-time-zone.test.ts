import { describe, expect, it } from 'vitest';
import { JOB_NAMES } from '../../server/jobs';
import { auditOf } from '../../server/store/audit';
import { setPricing } from '../../server/store/balance';
import { member } from './dashboard';
import { ENGINES, testClock } from './harness';
import { useOwnService } from './ledger';
import { paidTransaction, priced } from './pay';

// The shop's time zone (Settings): the dashboard writes its times in it, cuts the home's
// days, the payments list's day filter, a date typed in the search, the days pending money
// becomes available and the exports' ranges by it, and dates the exports' rows in it. A payment made at
// 23:30 UTC is the next day's in Madrid (UTC+1 in winter): it must count there and not in
// UTC, whichever zone the test machine runs in. Changing the zone is for owners and admins,
// checked against the runtime's list, and audited.

const HOUR = 3_600_000;

/** The text of the home's "Today" cell of a currency's payments. */
function todaysPayments(html: string): string {
  const row = /<tr data-kind="payments">([\s\S]*?)<\/tr>/.exec(html)?.[1] ?? '';
  return /data-period="1">([^<]*)<\/td>/.exec(row)?.[1] ?? '';
}

describe.each(ENGINES)('the dashboard in the shop’s time zone on %s', (engine) => {
  const clock = testClock();
  const svc = useOwnService(engine, { now: clock.now });

  it('owners set it from the list; an unknown zone is a 400 and a viewer a 403, nothing changed; the change is audited', async () => {
    const { browser: owner } = await member(svc.t, svc.api, 'owner');
    const { browser: viewer } = await member(svc.t, svc.api, 'viewer');
    const page = await owner.get('/dashboard/settings/');
    expect(page.text).toContain('<option value="UTC" selected>UTC</option>');
    expect(page.text).toContain('<option value="Europe/Madrid">Europe/Madrid</option>');

    const unknown = await owner.post('/dashboard/settings/time-zone/', { time_zone: 'Mars/Olympus_Mons' });
    expect(unknown.status).toBe(400);
    expect(unknown.text).toContain('data-testid="error-time_zone"');
    expect((await viewer.post('/dashboard/settings/time-zone/', { time_zone: 'Europe/Madrid' })).status).toBe(403);
    expect((await owner.get('/dashboard/settings/')).text).toContain('<option value="UTC" selected>UTC</option>');

    const saved = await owner.post('/dashboard/settings/time-zone/', { time_zone: 'America/New_York' });
    expect(saved.status).toBe(303);
    const after = await owner.get(saved.location!);
    expect(after.text).toContain('Time zone saved.');
    expect(after.text).toContain('<option value="America/New_York" selected>America/New York</option>');
    const audit = await auditOf(svc.t.service.deps.database.db, svc.api.keys.environment_id, { action: 'settings_changed', limit: 10, offset: 0 });
    expect(audit.map((e) => JSON.parse(e.detail ?? '{}'))).toContainEqual({ fields: 'time_zone', time_zone: 'America/New_York' });
  });

  it("counts a payment at 23:30 UTC in Madrid's next day on the home, writes its time in Madrid, and exports Madrid's days with their offset", async () => {
    const shop = await svc.t.newEnvironment('Madrid shop');
    const { browser: owner } = await member(svc.t, shop, 'owner');
    // 23:30 UTC of a winter day, 00:30 the next day in Madrid.
    clock.reset();
    clock.advance(Date.parse('2026-01-14T23:30:00.000Z') - Date.now());
    const { transaction } = await paidTransaction(shop, priced('EUR', 12.5, { order_id: 'late-night' }));
    // Ten minutes after midnight UTC: the 15th everywhere, in Madrid since 23:00 UTC.
    clock.advance(HOUR / 2 + HOUR / 6);

    const inUtc = await owner.get('/dashboard/');
    expect(inUtc.text).toContain('Today (UTC)');
    expect(todaysPayments(inUtc.text)).toBe('€0.00 (0)');
    const utcRows = (await owner.get('/dashboard/export/csv?kind=transactions&from=2026-01-15&to=2026-01-15')).text.split('\r\n').filter(Boolean);
    expect(utcRows).toHaveLength(1); // the header only: the payment was the 14th in UTC

    expect((await owner.post('/dashboard/settings/time-zone/', { time_zone: 'Europe/Madrid' })).status).toBe(303);
    const inMadrid = await owner.get('/dashboard/');
    expect(inMadrid.text).toContain('Today (Europe/Madrid)');
    expect(todaysPayments(inMadrid.text)).toBe('€12.50 (1)');
    expect(inMadrid.text).toContain('data-day="2026-01-15"');

    // The payments list's day filter: the 15th in Madrid holds it, the 14th does not.
    expect((await owner.get('/dashboard/transactions/?from=2026-01-15&to=2026-01-15')).text).toContain(transaction.id);
    expect((await owner.get('/dashboard/transactions/?from=2026-01-14&to=2026-01-14')).text).not.toContain(transaction.id);

    const detail = await owner.get(`/dashboard/transactions/${transaction.id}/`);
    expect(detail.text).toContain('Jan 15, 2026, 12:30 AM GMT+1');

    const csv = await owner.get('/dashboard/export/csv?kind=transactions&from=2026-01-15&to=2026-01-15');
    const [header, row] = csv.text.replace(/^\uFEFF/, '').split('\r\n');
    expect(header!.split(',').slice(0, 2)).toEqual(['id', 'created_at']);
    expect(row).toContain(transaction.id);
    expect(row).toMatch(/,2026-01-15T00:30:0\d\.\d{3}\+01:00,/);
    // The 14th in Madrid ends at 23:00 UTC: the payment is not in it.
    const before = (await owner.get('/dashboard/export/csv?kind=transactions&from=2026-01-14&to=2026-01-14')).text.split('\r\n').filter(Boolean);
    expect(before).toHaveLength(1);
  });

  it("reads a date typed in the search as Auckland's day, and shows when pending money becomes available as Auckland's day", async () => {
    const shop = await svc.t.newEnvironment('Auckland shop');
    const { browser: owner } = await member(svc.t, shop, 'owner');
    const db = svc.t.service.deps.database.db;
    // Pending for a day, no fee: the whole amount becomes available 24 hours after the payment.
    await setPricing(db, shop.keys.environment_id, { charge: { percentE2: 0n, fixed: 0n }, refund: { percentE2: 0n, fixed: 0n }, settlementDelayDays: 1 }, svc.t.service.deps.now());
    // 11:30 UTC on the 14th of January is 00:30 on the 15th in Auckland (UTC+13 in its summer).
    clock.reset();
    clock.advance(Date.parse('2026-01-14T11:30:00.000Z') - Date.now());
    const { transaction } = await paidTransaction(shop, priced('EUR', 12.37, { order_id: 'just-after-midnight' }));
    while ((await svc.t.service.jobs.runOnce(JOB_NAMES.balance)) > 0);
    clock.advance(HOUR / 6);
    const found = async (q: string) => {
      const everywhere = (await owner.get(`/dashboard/search/?q=${encodeURIComponent(q)}`)).text;
      const list = (await owner.get(`/dashboard/transactions/?q=${encodeURIComponent(q)}`)).text;
      return [everywhere.includes(`/dashboard/transactions/${transaction.id}/`), list.includes(transaction.id)];
    };
    const becoming = async () => /<ul data-testid="becoming-available">([\s\S]*?)<\/ul>/.exec((await owner.get('/dashboard/balance/')).text)?.[1];

    // In UTC it was the 14th, and becomes available on the 15th.
    expect(await found('4242 12.37 2026-01-14')).toEqual([true, true]);
    expect(await found('4242 12.37 2026-01-15')).toEqual([false, false]);
    expect(await becoming()).toBe('<li>€12.37 on 2026-01-15 (UTC)</li>');

    expect((await owner.post('/dashboard/settings/time-zone/', { time_zone: 'Pacific/Auckland' })).status).toBe(303);
    // In Auckland it was the 15th, in the header's search and in the payments list's own box alike.
    expect(await found('4242 12.37 2026-01-15')).toEqual([true, true]);
    expect(await found('2026-01-15 12.37')).toEqual([true, true]);
    expect(await found('4242 12.37 2026-01-14')).toEqual([false, false]);
    // And the money becomes available at 00:30 on the 16th there.
    expect(await becoming()).toBe('<li>€12.37 on 2026-01-16 (Pacific/Auckland)</li>');
  });
});
