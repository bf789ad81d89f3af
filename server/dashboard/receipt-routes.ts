import type { IRouter } from 'express';
import { resendPaymentReceipt } from '../notify/receipt-resend';
import type { Kit } from './kit';
import { ID, showTransaction, txUrl } from './money-routes';

// POST /dashboard/transactions/{id}/receipt/: the payment's receipt emailed to its customer
// again (admins and owners, as refunds), queued in the mail outbox and audited; refused on
// the payment's page, nothing queued, when it is not paid, has no customer email, or had a
// receipt queued less than a minute ago (domain/receipt-resend.ts).

export function receiptRoutes(router: IRouter, kit: Kit): void {
  const { db, deps, forms, action, textOf, audit, notFound } = kit;
  router.post('/transactions/:id/receipt/', forms, action('admin', async (req, res, s) => {
    const id = String(req.params.id);
    const outcome = ID.test(id) ? await resendPaymentReceipt(db, s.current.environment_id, id, deps.now()) : undefined;
    if (!outcome) return notFound(req, res);
    if (!outcome.queued) {
      return showTransaction(kit, req, res, s, id, outcome.refusal === 'too_soon' ? 429 : 409, textOf(req).t(`receipt.refused.${outcome.refusal}`));
    }
    await audit(req, s, 'receipt_resent', { transaction: id });
    res.redirect(303, `${txUrl(id)}?done=receipt`);
  }));
}
