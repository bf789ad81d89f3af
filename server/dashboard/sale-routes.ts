import { createHash } from 'node:crypto';
import { scopedDeps } from '../deps';
import type { IRouter } from 'express';
import { z } from 'zod';
import { DecimalError, toUnits } from '../domain/money';
import { actionLimit, type SaleAction } from '../domain/sales';
import { OPERATION_REASONS } from '../domain/payment-reference';
import { boundStep } from '../payments/outcome';
import { moveSaleMoney, type SaleActionOutcome } from '../payments/sale-actions';
import { runIdempotent } from '../commands/idempotent';
import { getSale } from '../store/sales';
import { newSecret } from './accounts';
import { exponentOf } from '../domain/currencies';
import type { DashboardText } from './i18n';
import type { Kit } from './kit';
import { ID, showTransaction, txUrl } from './money-routes';
import { confirmActionPage, decimalField, refundStepPage } from './sale-pages';

// POST /dashboard/sales/{id}/{capture|refund|void}/: the amount and reason (a refund's
// also on a step of its own, GET …/refund/) first, then its confirmation. The confirmed action calls the same use case as the API
// (payments/sale-actions.ts) under an idempotency key of the confirmation form, so a
// double click is one action and concurrency and faults behave as in the API.

/**
 * A double-clicked confirmation sends the form twice, and the browser shows the second
 * answer. That one waits for the first to finish (and replays its result) rather than
 * telling the user to reload, as long as the first one plausibly takes.
 */
const IN_FLIGHT_WAIT_MS = 15_000;

const actionForm = z.object({
  amount: z.string().trim().regex(/^\d{1,15}([.,]\d{1,3})?$/),
  idempotency_key: z.string().regex(/^[A-Za-z0-9_-]{43}$/).optional(),
  // The action's reason (the API's); an empty choice is none.
  reason: z.preprocess((v) => (v === '' ? undefined : v), z.enum(OPERATION_REASONS).optional()),
});

/** The posted reason, read apart from the amount: an action with a bad one is refused with its own message. */
const reasonOf = (body: unknown) => actionForm.shape.reason.safeParse((body as Record<string, unknown> | undefined)?.reason);

/** The form's decimal amount in minor units of `currency`; -1 when it is not one, `decimals` when it has more than the currency. */
function formAmount(form: z.ZodSafeParseResult<z.infer<typeof actionForm>>, currency: string): number | 'decimals' {
  if (!form.success) return -1;
  if ((/[.,](\d+)$/.exec(form.data.amount)?.[1]?.length ?? 0) > exponentOf(currency)) return 'decimals';
  try {
    return Number(toUnits(Number(form.data.amount.replace(',', '.')), exponentOf(currency)));
  } catch (err) {
    if (!(err instanceof DecimalError)) throw err;
    return -1;
  }
}

/** Why a form's amount or reason is refused, in the merchant's words. */
function refusalOf(text: DashboardText, name: SaleAction, f: { amount: number | 'decimals'; limit: number; currency: string; reasonGiven: boolean }): string {
  if (!f.reasonGiven) return text.t(name === 'refund' ? 'refund.badReason' : 'sale.badReason');
  // Said apart from "above zero and at most …", which 5.001 euros would not explain.
  if (f.amount === 'decimals') return text.t('sale.decimals', { currency: f.currency, example: decimalField(f.limit, f.currency) });
  return text.t('sale.badAmount', { max: text.money(f.limit, f.currency) });
}

/** The status and words of an action that moved nothing (or not all); null when it was done or is pending. */
function refusalOfOutcome(text: DashboardText, outcome: SaleActionOutcome): [number, string] | null {
  switch (outcome.kind) {
    case 'in_flight':
    case 'conflict':
      return [409, text.t(outcome.kind === 'in_flight' ? 'sale.inFlight' : 'sale.conflict')];
    case 'part_of':
      return [409, text.t('sale.partOf')];
    case 'unsupported':
      return [409, text.t(`sale.unsupported.${outcome.missing}`)];
    case 'gateway_failed':
      return [502, text.t('sale.failed', { reason: outcome.reason })];
    case 'partial':
      return [502, text.t('sale.partial', { reason: outcome.reason })];
    default:
      return null;
  }
}

/** GET /dashboard/sales/{id}/refund/: the refund's first step, its amount and reason (refundStepPage). */
function refundStep(router: IRouter, kit: Kit): void {
  const { db, page, send, textOf, notFound } = kit;
  router.get('/sales/:id/refund/', page('admin', async (req, res, s) => {
    const id = String(req.params.id);
    const sale = ID.test(id) ? await getSale(db, s.current.environment_id, id) : undefined;
    if (!sale) return notFound(req, res);
    const back = txUrl(sale.row.transaction_id);
    if (actionLimit('refund', sale.row) <= 0) return res.redirect(303, back);
    send(res, 200, refundStepPage({ text: textOf(req), session: s, sale: sale.row, back }));
  }));
}

export function saleRoutes(router: IRouter, kit: Kit): void {
  const { db, deps, forms, action, send, textOf, audit, notFound, forbidden } = kit;
  refundStep(router, kit);

  for (const name of ['capture', 'refund', 'void'] as const satisfies SaleAction[]) {
    router.post(`/sales/:id/${name}/`, forms, action('admin', async (req, res, s) => {
      const env = s.current.environment_id;
      const id = String(req.params.id);
      const sale = ID.test(id) ? await getSale(db, env, id) : undefined;
      if (!sale) return notFound(req, res);
      const text = textOf(req);
      const back = txUrl(sale.row.transaction_id);
      const limit = actionLimit(name, sale.row);
      const refuse = (status: number, notice: string) =>
        sale.row.transaction_id ? showTransaction(kit, req, res, s, sale.row.transaction_id, status, notice) : send(res, status, notice);
      const form = actionForm.safeParse(req.body);
      const amount = formAmount(form, sale.row.currency);
      const reason = reasonOf(req.body);
      if (!form.success || amount === 'decimals' || amount <= 0 || amount > limit || !reason.success) {
        const message = refusalOf(text, name, { amount, limit, currency: sale.row.currency, reasonGiven: reason.success });
        if (name !== 'refund' || limit <= 0) return refuse(400, message);
        // The refund's own step again, with what was typed and why it was refused.
        const typed = { amount: String((req.body as Record<string, unknown>).amount ?? '').slice(0, 20), reason: reason.data };
        return send(res, 400, refundStepPage({ text, session: s, sale: sale.row, back, error: message, ...typed }));
      }
      const merchantReason = reason.data;
      const key = form.data.idempotency_key;
      if (!key) {
        return send(res, 200, confirmActionPage({ text, session: s, sale: sale.row, action: name, amount, idempotencyKey: newSecret(), back, reason: merchantReason }));
      }
      const done = `${back}?done=${name}&amount=${amount}`;
      const command = await runIdempotent<SaleActionOutcome>(db, {
        environmentId: env,
        key: `dashboard:${key}`,
        requestHash: createHash('sha256').update(`${sale.row.id}:${name}:${amount}:${merchantReason ?? ''}`).digest('hex'),
        now: deps.now,
        gatewayCalls: 1,
        paymentClaimMs: deps.config.paymentClaimMs,
        waitMs: IN_FLIGHT_WAIT_MS,
        // Thrown mid-way (the database gone): the key stays running until its claim expires, as the movement may have begun.
        failed: () => 'keep',
        async run(_db, binding) {
          // The key's binding names its gateway call, so a repeat after a crash rolls the same step forward (as the API does).
          const outcome = await moveSaleMoney(scopedDeps(deps, req), { sale: sale.row, action: name, amount, bound: boundStep(binding), merchantReason });
          // What was refunded stands: a repeat of the form is sent to the transaction, where the sale shows it.
          if (outcome.kind === 'partial') {
            await audit(req, s, `sale_${name}`, { sale: sale.row.id, amount: text.money(amount - outcome.refused, sale.row.currency) });
            return { value: outcome, end: { status: 303, body: back } };
          }
          if (outcome.kind === 'in_flight') return { value: outcome, end: 'keep' };
          if (outcome.kind !== 'done' && outcome.kind !== 'pending') return { value: outcome, end: 'release' };
          await audit(req, s, `sale_${name}`, { sale: sale.row.id, amount: text.money(amount, sale.row.currency), ...(merchantReason ? { reason: merchantReason } : {}) });
          return { value: outcome, end: { status: 303, body: done } };
        },
      });
      if (command.kind === 'replay') return res.redirect(303, command.body);
      if (command.kind === 'in_flight') return refuse(409, text.t('sale.inFlight'));
      if (command.kind === 'mismatch') return forbidden(req, res);
      const refused = refusalOfOutcome(text, command.value);
      if (refused) return refuse(...refused);
      // Done, or pending (the provider's answer was lost): the sale shows which, and reconciliation settles a pending one.
      res.redirect(303, done);
    }));
  }
}
