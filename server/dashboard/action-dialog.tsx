import { actionLimit, type SaleAction } from '../domain/sales';
import type { StoredSale } from '../store/sales';
import { Csrf } from './layout';
import { decimalField, ReasonSelect, RefundForm, refundIntro, type Signed } from './sale-pages';

// A payment's Refund…, Capture… and Void… at the top of its page: each a button that opens a
// <dialog> with the action's first step (amount and reason, a refund's required), whose Continue
// leads to the same confirmation as everywhere (sale-routes.ts). No script: the button opens it
// as a modal dialog by an invoker command (commandfor), so the page behind is inert and Tab
// stays inside; it closes by Escape, Cancel or a click outside. A browser without invoker
// commands opens it as a popover (popovertarget), and one without popovers shows the step in
// the page instead (dashboard.css), where it works the same.

function CaptureOrVoidForm({ text, session, sale, action }: Signed & { sale: StoredSale['row']; action: Exclude<SaleAction, 'refund'> }) {
  const { t } = text;
  const id = `dialog-${action}-amount`;
  return (
    <form method="post" action={`/dashboard/sales/${sale.id}/${action}/`} class="card">
      <Csrf token={session.csrf} />
      <label for={id}>{t('sale.amountOf', { action: t(`sale.verb.${action}`), currency: sale.currency })}</label>
      <input id={id} name="amount" inputMode="decimal" required autocomplete="off" value={decimalField(actionLimit(action, sale), sale.currency)} autofocus />
      <ReasonSelect text={text} id={`dialog-${action}-reason`} />
      <button type="submit" class="primary">
        {t('refund.continue')}
      </button>
    </form>
  );
}

export function ActionDialog(p: Signed & { sale: StoredSale['row']; action: SaleAction }) {
  const { text, sale, action } = p;
  const { t } = text;
  const id = `${action}-dialog`;
  return (
    <>
      <button type="button" class={action === 'refund' ? 'primary action-open' : 'action-open'} commandfor={id} command="show-modal" popovertarget={id}>
        {t(`pay.${action}Open`)}
      </button>
      <dialog id={id} popover="auto" closedby="any" class="action-dialog" aria-labelledby={`${id}-title`}>
        <h2 id={`${id}-title`}>{t(`dialog.${action}.title`)}</h2>
        {action === 'refund' ? (
          <>
            <p>{refundIntro(text, sale)}</p>
            <RefundForm text={text} session={p.session} sale={sale} idPrefix="dialog-refund" autofocus />
          </>
        ) : (
          <CaptureOrVoidForm text={text} session={p.session} sale={sale} action={action} />
        )}
        <button type="button" class="quiet action-close" commandfor={id} command="close" popovertarget={id} popovertargetaction="hide">
          {t('dialog.cancel')}
        </button>
      </dialog>
    </>
  );
}
