import { useMoney, useScreen } from '../context';
import { formatQuantity } from '../../i18n/format';
import type { AdjustmentLine } from '../view';
import type { MessageKey } from '../../i18n/messages';
import { SubscriptionSummary } from './SubscriptionSummary';
import { flavourOf } from '../flavour';

/**
 * A tax, shipping or coupon row: the kind always, the merchant's name beside it ("Shipping ·
 * Colissimo"), since a bare name ("WELCOME10", "IVA 21 %") does not say what it is.
 */
function Adjustment({ line, kind, deduction }: { line: AdjustmentLine | null; kind: MessageKey; deduction?: boolean }) {
  const { i18n } = useScreen();
  const money = useMoney();
  if (!line) return null;
  return (
    <div class={deduction ? 'totals__row totals__row--deduction' : 'totals__row'}>
      <dt>
        {i18n.t(kind)}
        {line.name && <span aria-hidden="true"> · </span>}
        {line.name && <span class={deduction ? 'totals__code' : 'totals__name'}>{line.name}</span>}
      </dt>
      <dd>{money(deduction ? -line.value : line.value)}</dd>
    </div>
  );
}

/** What the header calls the merchant: still to pay (or subscribe to, or save a card for), paid, or neither any more. */
function merchantLabel(status: string, flavour: ReturnType<typeof flavourOf>): MessageKey {
  const open = status === 'pending' || status === 'declined';
  if (flavour === 'save') return open ? 'save.label' : status === 'paid' ? 'save.labelDone' : 'merchant.labelClosed';
  if (flavour === 'subscription' && open) return 'subscription.label';
  if (status === 'paid') return flavour === 'subscription' ? 'subscription.labelDone' : 'merchant.labelPaid';
  return status === 'cancelled' || status === 'expired' ? 'merchant.labelClosed' : 'merchant.label';
}

/**
 * Who is being paid and how much, first on every screen size, with the order's details
 * as a disclosure right under the total (open beside the form on wide screens). When the
 * link expires is said under the Pay button, where it matters.
 */
export function MerchantHeader() {
  const { model, i18n, parts } = useScreen();
  const money = useMoney();
  const view = model.view.value;
  return (
    <section class="merchant" aria-labelledby="merchant-name">
      {/* The name beside it says who: the logo adds nothing for a screen reader. */}
      {view.brand?.logo && <img class="merchant__logo" src={view.brand.logo} alt="" />}
      <p class="merchant__label">{i18n.t(merchantLabel(view.status, flavourOf(view)))}</p>
      <h1 id="merchant-name" class="merchant__name">
        {view.merchantName}
      </h1>
      {view.orderId && <p class="merchant__order">{i18n.t('merchant.order', { orderId: view.orderId })}</p>}
      {view.saveCard ? (
        <p class="merchant__order">{i18n.t('save.intro', { merchant: view.merchantName })}</p>
      ) : view.subscription ? (
        <SubscriptionSummary terms={view.subscription} />
      ) : (
        <>
          <p class="merchant__total">{money(view.totalPrice)}</p>
          <parts.OrderSummary />
        </>
      )}
    </section>
  );
}

export function OrderSummary() {
  const { model, i18n } = useScreen();
  const money = useMoney();
  const view = model.view.value;
  return (
    // A native disclosure: it opens and closes without JavaScript.
    <details class="summary">
      <summary class="summary__toggle">{i18n.t('summary.toggle', { count: view.lines.length })}</summary>
      <section class="summary__body" aria-labelledby="summary-heading">
        <h2 class="summary__heading" id="summary-heading">
          {i18n.t('summary.heading')}
        </h2>
        <ul class="lines">
          {view.lines.map((line, index) => (
            <li class="line" key={index}>
              <div class="line__main">
                <span class="line__name">{line.name}</span>
                {line.description && <span class="line__desc">{line.description}</span>}
                <span class="line__detail">
                  {i18n.t('summary.lineDetail', {
                    quantity: formatQuantity(line.quantity, i18n.locale),
                    unitPrice: money(line.unitPrice),
                  })}
                </span>
              </div>
              <span class="line__total">{money(line.lineTotal)}</span>
            </li>
          ))}
        </ul>

        <dl class="totals">
          <div class="totals__row">
            <dt>{i18n.t('summary.subtotal')}</dt>
            <dd>{money(view.itemsPrice)}</dd>
          </div>
          {/* In the order of the computation (docs/checkout.md): tax and coupon are both taken
              on the subtotal, so the discount comes last and never looks taxed. */}
          <Adjustment line={view.tax} kind="summary.tax" />
          <Adjustment line={view.shipping} kind="summary.shipping" />
          <Adjustment line={view.coupon} kind="summary.coupon" deduction />
          <div class="totals__row totals__row--total">
            <dt>{i18n.t('summary.total')}</dt>
            <dd>{money(view.totalPrice)}</dd>
          </div>
        </dl>
      </section>
    </details>
  );
}
