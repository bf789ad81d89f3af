import type { ComponentChildren } from 'preact';
import { useMoney, useScreen } from '../context';
import { brandName } from '../../fields/card';
import { formatDateTime, shortReference } from '../../i18n/format';
import { Icon } from './icons';
import { keyOf } from '../flavour';

/** The heading takes focus when the state changes under the customer (see CheckoutScreen). */
function StatusPanel({ tone, icon, title, children }: { tone: string; icon: ComponentChildren; title: string; children?: ComponentChildren }) {
  return (
    <div class={`status status--${tone}`}>
      <div class="status__badge">{icon}</div>
      <h2 class="status__title" id="status-title" tabIndex={-1}>
        {title}
      </h2>
      {children}
    </div>
  );
}

/** A result is not a dead end: the way back to the shop, when the merchant gave one. */
function BackToShop({ href }: { href: string | null | undefined }) {
  const { model, i18n } = useScreen();
  if (!href) return null;
  return (
    <a class="button button--primary status__back" href={href}>
      <Icon name="back" class="icon--sm" />
      <span>{i18n.t('action.back', { merchant: model.view.value.merchantName })}</span>
    </a>
  );
}

function PaidPanel() {
  const { model, i18n } = useScreen();
  const money = useMoney();
  const view = model.view.value;
  const receipt = view.receipt;
  const brand = brandName(receipt?.brand ?? null);
  const method = receipt?.last4
    ? brand
      ? i18n.t('receipt.card', { brand, last4: receipt.last4 })
      : i18n.t('receipt.cardNoBrand', { last4: receipt.last4 })
    : brand;
  const returning = model.returningTo.value;
  return (
    <StatusPanel tone="success" icon={<Icon name="check" />} title={i18n.t(keyOf(view, { pay: 'status.paid.title', subscription: 'subscription.done.title', save: 'save.done.title' }))}>
      <p class="status__text">
        {i18n.t(keyOf(view, { pay: 'status.paid.body', subscription: 'subscription.done.body', save: 'save.done.body' }), { merchant: view.merchantName })}
      </p>
      {returning && (
        <p class="status__text" role="status">
          {i18n.t('status.returning', { merchant: view.merchantName })}
        </p>
      )}
      {receipt && (
        <dl class="receipt" aria-label={i18n.t('receipt.heading')}>
          <div class="receipt__row">
            <dt>{i18n.t('receipt.amount')}</dt>
            <dd>{money(receipt.amount)}</dd>
          </div>
          {method && (
            <div class="receipt__row">
              <dt>{i18n.t('receipt.method')}</dt>
              <dd>{method}</dd>
            </div>
          )}
          <div class="receipt__row">
            <dt>{i18n.t('receipt.date')}</dt>
            <dd>{formatDateTime(receipt.paidAt, i18n.locale, model.timeZone.value)}</dd>
          </div>
          {view.orderId && (
            <div class="receipt__row">
              <dt>{i18n.t('receipt.order')}</dt>
              <dd>{view.orderId}</dd>
            </div>
          )}
          <div class="receipt__row">
            <dt>{i18n.t('receipt.reference')}</dt>
            <dd class="receipt__ref">{shortReference(receipt.saleId)}</dd>
          </div>
        </dl>
      )}
      <div class="status__actions">
        <BackToShop href={view.returnUrl} />
        {/* Printing needs the browser's script; without it the browser's own menu prints. */}
        {receipt && model.interactive.value && (
          <button class="button button--quiet" type="button" onClick={() => window.print()}>
            <Icon name="print" class="icon--sm" />
            <span>{i18n.t('receipt.print')}</span>
          </button>
        )}
      </div>
    </StatusPanel>
  );
}

function CancelledPanel() {
  const { model, i18n } = useScreen();
  const view = model.view.value;
  return (
    <StatusPanel tone="neutral" icon={<Icon name="cross" />} title={i18n.t(keyOf(view, { pay: 'status.cancelled.title', subscription: 'subscription.cancelled.title', save: 'save.cancelled.title' }))}>
      <p class="status__text">{i18n.t(keyOf(view, { pay: 'status.cancelled.body', subscription: 'subscription.cancelled.body', save: 'save.cancelled.body' }))}</p>
      <BackToShop href={model.view.value.backUrl} />
    </StatusPanel>
  );
}

function ExpiredPanel() {
  const { model, i18n } = useScreen();
  const view = model.view.value;
  return (
    <StatusPanel tone="neutral" icon={<Icon name="hourglass" />} title={i18n.t(keyOf(view, { pay: 'status.expired.title', subscription: 'subscription.closed.title', save: 'save.closed.title' }))}>
      <p class="status__text">{i18n.t(keyOf(view, { pay: 'status.expired.body', subscription: 'subscription.closed.body', save: 'save.closed.body' }), { merchant: view.merchantName })}</p>
      <BackToShop href={view.backUrl} />
    </StatusPanel>
  );
}

function CheckingPanel() {
  const { model, i18n } = useScreen();
  const save = model.view.value.saveCard;
  return (
    <StatusPanel tone="neutral" icon={<Icon name="hourglass" />} title={i18n.t(save ? 'save.checking.title' : 'status.checking.title')}>
      <p class="status__text">{i18n.t(save ? 'save.checking.body' : 'status.checking.body')}</p>
    </StatusPanel>
  );
}

/** The statuses that show a result instead of the form. */
export type ResultStatus = 'paid' | 'cancelled' | 'expired' | 'checking';

/** The result of a closed payment, by its status. */
export function ResultPanel({ status }: { status: ResultStatus }) {
  switch (status) {
    case 'paid':
      return <PaidPanel />;
    case 'cancelled':
      return <CancelledPanel />;
    case 'expired':
      return <ExpiredPanel />;
    case 'checking':
      return <CheckingPanel />;
  }
}
