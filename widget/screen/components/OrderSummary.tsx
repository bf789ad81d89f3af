import { useMoney, useScreen } from '../context';
import { formatQuantity } from '../format';
import type { AdjustmentLine } from '../view';
import type { MessageKey } from '../../i18n/messages';
import { Expiry } from './Expiry';

function Adjustment({ line, fallback, sign }: { line: AdjustmentLine | null; fallback: MessageKey; sign: 1 | -1 }) {
  const { i18n } = useScreen();
  const money = useMoney();
  if (!line) return null;
  return (
    <div class={sign < 0 ? 'totals__row totals__row--deduction' : 'totals__row'}>
      <dt>{line.name || i18n.t(fallback)}</dt>
      <dd>{money(sign * line.value)}</dd>
    </div>
  );
}

export function OrderSummary() {
  const { model, i18n } = useScreen();
  const money = useMoney();
  const view = model.view.value;
  return (
    <section class="summary" aria-labelledby="merchant-name">
      <div class="merchant">
        <p class="merchant__label">{i18n.t('merchant.label')}</p>
        <h1 id="merchant-name" class="merchant__name">
          {view.merchantName}
        </h1>
        {view.orderId && <p class="merchant__order">{i18n.t('merchant.order', { orderId: view.orderId })}</p>}
        <p class="merchant__total">{money(view.totalPrice)}</p>
        {model.payable.value && <Expiry />}
      </div>

      <h2 class="summary__heading">{i18n.t('summary.heading')}</h2>
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
        <Adjustment line={view.coupon} fallback="summary.coupon" sign={-1} />
        <Adjustment line={view.shipping} fallback="summary.shipping" sign={1} />
        <Adjustment line={view.tax} fallback="summary.tax" sign={1} />
        <div class="totals__row totals__row--total">
          <dt>{i18n.t('summary.total')}</dt>
          <dd>{money(view.totalPrice)}</dd>
        </div>
      </dl>
    </section>
  );
}
