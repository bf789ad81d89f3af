import type { IRouter, Request, Response } from 'express';
import { z } from 'zod';
import { checkManualPayout, type ManualPayoutRefusal, requestManualPayout } from '../payments/manual-payout';
import { PROCESSOR_GATEWAY_IDS } from '../payments/processors';
import { processorSettledIds } from '../payments/settlement';
import { balanceOf } from '../store/balance';
import { feesIn, listBalanceTransactionsIn, payoutsOnTheirWay, pendingByDay, processorFiguresIn, processorSalesIn } from '../store/balance-overview';
import { getMerchantPayout, heldUntil, listMerchantPayouts, payoutSettingsOf } from '../store/merchant-payouts';
import { listFiles } from '../store/payout-files';
import { latestProcessorPayouts } from '../store/processor-payouts';
import { roleAtLeast } from '../store/users';
import type { ActiveSession } from './accounts';
import { parseBalanceFilters, periodOf, storeFiltersOf } from './balance-filters';
import { balancePage, payOutConfirmPage } from './balance-page';
import type { DashboardText } from './i18n';
import type { Kit } from './kit';
import type { ActionNotice } from './list-parts';
import type { RefusedAccountForm } from './payout-account-form';
import { payoutAccountRoutes } from './payout-account-routes';
import { hasSecondFactor } from './second-factor';

// /dashboard/balance/ (balance-page.tsx) and its one action, "Pay out now": owners only, a
// POST with the CSRF token, asked once more with the amount and the account, then the use
// case POST /v1/merchant_payout/ calls (payments/manual-payout.ts), audited. Refused in
// words when the schedule is not "On request", no bank account is set, or nothing is
// available; the money of a processor the merchant connected is shown, never paid out here.
// The bank account and schedule form and its confirm link: payout-account-routes.ts.

const PAGE_SIZE = 20;
/** The latest payouts, payout files and payouts on their way shown; the rest are on their pages. */
const LATEST = 5;
/** A processor's latest payouts shown: about two weeks of its daily ones (the processor's own dashboard has the rest). */
const PROCESSOR_PAYOUTS = 10;
const ID = /^[0-9a-f-]{36}$/;
const payOutForm = z.object({ currency: z.string().regex(/^[A-Z]{3}$/), confirm: z.literal('yes').optional() });
const doneQuery = z.object({ paid_out: z.string().regex(ID) });
const accountQuery = z.object({ account: z.enum(['changed', 'confirmed']) });

function refusalText(text: DashboardText, currency: string, r: ManualPayoutRefusal): string {
  const { t } = text;
  switch (r.reason) {
    case 'scheduled':
      return t('bal.refused.scheduled', { schedule: t(`payout.schedule.${r.schedule}`) });
    case 'nothing_available':
      return t('bal.refused.nothing_available', { currency });
    case 'held':
      return t('bal.refused.held', { last4: r.iban.slice(-4), until: text.dateTime(r.until) });
    default:
      return t(`bal.refused.${r.reason}`);
  }
}

/** Each processor-settled gateway's name: a connected processor's type, or a shared gateway's own name. */
function processorNames(kit: Kit, text: DashboardText): Map<string, string> {
  const names = new Map<string, string>();
  for (const [type, ids] of Object.entries(PROCESSOR_GATEWAY_IDS)) for (const id of ids) names.set(id, text.t(`proc.name.${type as keyof typeof PROCESSOR_GATEWAY_IDS}`));
  for (const g of kit.deps.gateways.all) if (g.settlement === 'processor') names.set(g.id, g.name);
  return names;
}

export function balanceRoutes(router: IRouter, kit: Kit): void {
  const { db, deps, page, action, forms, send, textOf, audit } = kit;

  /** The page, with what the last action came to. */
  const show = async (req: Request, res: Response, s: ActiveSession, status: number, notice?: ActionNotice, refusedAccount?: RefusedAccountForm) => {
    const env = s.current.environment_id;
    const text = textOf(req);
    const now = deps.now();
    const { filters, ignored } = parseBalanceFilters(req.query, now, text.timeZone);
    const period = periodOf(filters, text.timeZone);
    const owner = roleAtLeast(s.current.role, 'owner');
    const names = processorNames(kit, text);
    const settledIds = processorSettledIds(deps.gateways.all);
    const [balance, settings, becoming, onItsWay, fees, list, payouts, files, processor, figures, processorPayouts, secondFactor] = await Promise.all([
      balanceOf(db, env, now),
      payoutSettingsOf(db, env),
      pendingByDay(db, env, now, text.timeZone),
      payoutsOnTheirWay(db, env, LATEST * 4),
      feesIn(db, env, period),
      listBalanceTransactionsIn(db, env, storeFiltersOf(filters, text.timeZone), { page: filters.page, page_size: PAGE_SIZE }),
      listMerchantPayouts(db, env, {}, { page: 1, page_size: LATEST }),
      owner ? listFiles(db, env, {}, { page: 1, page_size: LATEST }) : null,
      processorSalesIn(db, env, settledIds, period),
      processorFiguresIn(db, env, settledIds, period),
      latestProcessorPayouts(db, env, PROCESSOR_PAYOUTS),
      owner && hasSecondFactor(db, s.userId),
    ]);
    const until = heldUntil(settings, now);
    const view = {
      balance: balance.map((b) => ({ currency: b.currency, available: Number(b.available), pending: Number(b.pending) })),
      ...{ settings, owner, becoming, onItsWay, fees, filters, ignored, now, notice, secondFactor, refusedAccount },
      held: until && settings.iban ? { last4: settings.iban.slice(-4), until } : null,
      byFile: Boolean(deps.payouts.forMode(s.current.environment_mode === 'live')?.files),
      transactions: { rows: list.rows, count: list.count, pages: Math.max(1, Math.ceil(list.count / PAGE_SIZE)) },
      payouts: payouts.rows,
      files: files?.rows ?? null,
      processor: processor.map(({ gateway_id, ...r }) => ({ name: names.get(gateway_id) ?? gateway_id, ...r })),
      processorFigures: figures.map(({ gateway_id, ...r }) => ({ name: names.get(gateway_id) ?? gateway_id, ...r })),
      processorPayouts,
    };
    send(res, status, balancePage({ text, session: s, view }));
  };

  router.get('/balance/', page('viewer', async (req, res, s) => {
    const done = doneQuery.safeParse(req.query);
    const payout = done.success ? await getMerchantPayout(db, s.current.environment_id, done.data.paid_out) : undefined;
    const text = textOf(req);
    const account = accountQuery.safeParse(req.query);
    const notice = payout
      ? { text: text.t('bal.paidOut', { amount: text.money(payout.amount, payout.currency) }), error: false }
      : account.success
        ? { text: text.t(account.data.account === 'changed' ? 'bal.account.changed' : 'bal.confirmed'), error: false }
        : undefined;
    await show(req, res, s, 200, notice);
  }));

  payoutAccountRoutes(router, kit, show);

  router.post('/balance/pay-out/', forms, action('owner', async (req, res, s) => {
    const text = textOf(req);
    const form = payOutForm.safeParse(req.body);
    if (!form.success) return show(req, res, s, 400, { text: text.t('bal.refused.currency'), error: true });
    const { currency, confirm } = form.data;
    const request = { environmentId: s.current.environment_id, live: s.current.environment_mode === 'live', currency };
    if (!confirm) {
      const check = await checkManualPayout(db, deps, request);
      if (!check.ok) return show(req, res, s, 409, { text: refusalText(text, currency, check), error: true });
      return send(res, 200, payOutConfirmPage({ text, session: s, currency, amount: Number(check.amount), iban: check.iban }));
    }
    const outcome = await requestManualPayout(db, deps, request);
    if (!outcome.ok) return show(req, res, s, 409, { text: refusalText(text, currency, outcome), error: true });
    await audit(req, s, 'payout_requested', { payout: outcome.payout.id, currency });
    res.redirect(303, `/dashboard/balance/?paid_out=${outcome.payout.id}`);
  }));
}
