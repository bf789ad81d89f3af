import { useMoney, useScreen } from '../context';
import { formatQuantity } from '../format';
import type { AdjustmentLine } from '../view';
import type { MessageKey } from '../../i18n/messages';
import { Expiry } from './Expiry';

function Adjustment({ line, label }: { line: AdjustmentLine | null; label: MessageKey }) {
  const { i18n } = useScreen();
  const money = useMoney();
  if (!line) return null;
  return (
    <div class="totals__row">
      <dt>{line.name || i18n.t(label)}</dt>
      <dd>{money(line.value)}</dd>
    </div>
  );
}

/** A coupon's name is often a bare code ("WELCOME10"), so it is shown beside the word "Discount". */
function Deduction({ line }: { line: AdjustmentLine | null }) {
  const { i18n } = useScreen();
  const money = useMoney();
  if (!line) return null;
  return (
    <div class="totals__row totals__row--deduction">
      <dt>
        {i18n.t('summary.coupon')}
        {line.name && ' '}
        {line.name && <span class="totals__code">{line.name}</span>}
      </dt>
      <dd>{money(-line.value)}</dd>
    </div>
  );
}

/** Who is being paid and how much: first on every screen size. */
export function MerchantHeader() {
  const { model, i18n } = useScreen();
  const money = useMoney();
  const view = model.view.value;
  return (
    <section class="merchant" aria-labelledby="merchant-name">
      <p class="merchant__label">{i18n.t('merchant.label')}</p>
      <h1 id="merchant-name" class="merchant__name">
        {view.merchantName}
      </h1>
      {view.orderId && <p class="merchant__order">{i18n.t('merchant.order', { orderId: view.orderId })}</p>}
      <p class="merchant__total">{money(view.totalPrice)}</p>
      {model.payable.value && !view.subscription && <Expiry />}
    </section>
  );
}

export function OrderSummary() {
  const { model, i18n } = useScreen();
  const money = useMoney();
  const view = model.view.value;
  return (
    <section class="summary" aria-labelledby="summary-heading">
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
        <Deduction line={view.coupon} />
        <Adjustment line={view.shipping} label="summary.shipping" />
        <Adjustment line={view.tax} label="summary.tax" />
        <div class="totals__row totals__row--total">
          <dt>{i18n.t('summary.total')}</dt>
          <dd>{money(view.totalPrice)}</dd>
        </div>
      </dl>
    </section>
  );
}
