import { useMoney, useScreen } from '../context';
import { formatDate, formatDateTime } from '../../i18n/format';
import type { SubscriptionTerms } from '../view';

/** "€9.99 per month" / "€9.99 every 3 months", in the screen's language. */
function usePriceLabel(): (terms: SubscriptionTerms) => string {
  const { i18n } = useScreen();
  const money = useMoney();
  return (terms) => i18n.t(`subscription.price.${terms.interval}`, { amount: money(terms.amount), count: terms.intervalCount });
}

/** A free trial that this sign-up starts: nothing is charged today. */
export function inTrial(terms: SubscriptionTerms): boolean {
  return terms.trialDays > 0 && !terms.pastDue;
}

/**
 * The consent card schemes require by the Subscribe button: who may charge how much, how
 * often, from when, until the customer cancels.
 */
export function ConsentText({ terms }: { terms: SubscriptionTerms }) {
  const { model, i18n } = useScreen();
  const money = useMoney();
  const values = {
    merchant: model.view.value.merchantName,
    amount: money(terms.amount),
    every: i18n.t(`subscription.every.${terms.interval}`, { count: terms.intervalCount }),
    date: formatDate(terms.firstChargeAt, i18n.locale, model.timeZone.value),
  };
  return <p class="consent">{i18n.t(inTrial(terms) ? 'subscription.consentFrom' : 'subscription.consent', values)}</p>;
}

/**
 * The sign-up's terms, where an order's total and lines go: what is due today (nothing
 * during a free trial), the plan, its price and trial, and when the first charge falls.
 */
export function SubscriptionSummary({ terms }: { terms: SubscriptionTerms }) {
  const { model, i18n } = useScreen();
  const money = useMoney();
  const price = usePriceLabel();
  const view = model.view.value;
  const open = view.status === 'pending' || view.status === 'declined';
  const trial = inTrial(terms);
  const after = terms.pastDue
    ? i18n.t('subscription.pastDue', { amount: price(terms) })
    : trial && open
      ? i18n.t('subscription.then', { price: price(terms), date: formatDate(terms.firstChargeAt, i18n.locale, model.timeZone.value) })
      : i18n.t('subscription.firstCharge', { date: formatDateTime(terms.firstChargeAt, i18n.locale, model.timeZone.value) });
  return (
    <>
      {open && (
        <p class="merchant__total">
          {money(trial ? 0 : terms.amount)} <span class="merchant__due">{i18n.t('subscription.dueToday')}</span>
        </p>
      )}
      <section class="terms" aria-labelledby="terms-heading">
        <h2 class="terms__heading" id="terms-heading">
          {i18n.t('subscription.heading')}
        </h2>
        <p class="terms__plan">{terms.planName}</p>
        <p class="terms__price">{price(terms)}</p>
        {trial && <p class="terms__trial">{i18n.t('subscription.trial', { count: terms.trialDays })}</p>}
        {/* A stopped sign-up charges nothing, ever: no date to announce. */}
        {view.status != 'expired' && <p class="terms__when">{after}</p>}
      </section>
    </>
  );
}
