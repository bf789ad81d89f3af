import { useMoney, useScreen } from '../context';
import { formatDateTime } from '../format';
import type { SubscriptionTerms } from '../view';

/** "€9.99 per month" / "€9.99 every 3 months", in the screen's language. */
export function usePriceLabel(): (terms: SubscriptionTerms) => string {
  const { i18n } = useScreen();
  const money = useMoney();
  return (terms) => i18n.t(`subscription.price.${terms.interval}`, { amount: money(terms.amount), count: terms.intervalCount });
}

/** The sign-up's summary, in place of the order lines: the plan, its price, trial and first charge. */
export function SubscriptionSummary({ terms }: { terms: SubscriptionTerms }) {
  const { model, i18n } = useScreen();
  const price = usePriceLabel();
  return (
    <section class="summary" aria-labelledby="summary-heading">
      <h2 class="summary__heading" id="summary-heading">
        {i18n.t('subscription.heading')}
      </h2>
      <ul class="lines">
        <li class="line">
          <div class="line__main">
            <span class="line__name">{terms.planName}</span>
            <span class="line__detail">{price(terms)}</span>
            {terms.trialDays > 0 && !terms.pastDue && <span class="line__desc">{i18n.t('subscription.trial', { count: terms.trialDays })}</span>}
          </div>
        </li>
      </ul>
      <p class="line__desc">
        {i18n.t(terms.pastDue ? 'subscription.pastDue' : 'subscription.firstCharge', {
          date: formatDateTime(terms.firstChargeAt, i18n.locale, model.timeZone.value),
          amount: price(terms),
        })}
      </p>
    </section>
  );
}
