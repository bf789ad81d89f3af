import type { TargetedEvent } from 'preact';
import { useMoney, useScreen } from '../context';
import { formatTime } from '../../i18n/format';
import type { MessageKey } from '../../i18n/messages';
import { gatewayName } from '../gateway-name';
import { Expiry } from './Expiry';
import { Field } from './Field';
import { Icon } from './icons';
import { ConsentText } from './SubscriptionSummary';
import { keyOf } from '../flavour';
import type { CheckoutView } from '../view';

function FormAlert() {
  const { model, i18n } = useScreen();
  const { status, retryAt } = model.view.value;
  const key = model.message.value ?? (status === 'declined' ? 'error.declined' : null);
  const declined = model.status.value === 'declined';
  // The wait after too many declines is said as a time of day, in the customer's zone.
  const vars = retryAt ? { time: formatTime(retryAt, i18n.locale, model.timeZone.value) } : undefined;
  const text = key ? i18n.t(i18n.has(key) ? key : 'error.generic', vars) : null;
  // Always in the DOM so assistive technology is already watching it when text arrives.
  return (
    <div id="checkout-alert" class={text ? 'alert' : 'alert alert--empty'} role="alert" tabIndex={-1}>
      {text && (
        <>
          <Icon name="alert" class="alert__icon" />
          <div>
            <p class="alert__title">{i18n.t(declined ? (model.view.value.saveCard || model.view.value.subscription ? 'save.declined.title' : 'status.declined.title') : 'error.title')}</p>
            <p class="alert__text">{text}</p>
          </div>
        </>
      )}
    </div>
  );
}

function GatewayChoice() {
  const { model, i18n } = useScreen();
  const view = model.view.value;
  const errorKey = model.fieldErrors.value.gateway;
  const error = errorKey ? i18n.t(i18n.has(errorKey) ? errorKey : 'error.gatewayRequired') : null;
  return (
    <fieldset class={error ? 'gateways gateways--invalid' : 'gateways'} aria-describedby={error ? 'gateway-error' : undefined}>
      <legend class="gateways__legend">{i18n.t('gateway.legend')}</legend>
      {/* Always present, as a card field's error, so the message a pay without a choice
          brings is announced; each radio names it too, since focus moves to the first. */}
      <p class="field__error" id="gateway-error" aria-live="polite">
        {error}
      </p>
      <div class="gateways__list">
        {view.gateways.map((option) => (
          <label class="gateway" key={option.id}>
            <input
              class="gateway__radio"
              type="radio"
              name="gateway"
              id={`gateway-${option.id}`}
              value={option.id}
              checked={model.gatewayId.value === option.id}
              aria-describedby={error ? 'gateway-error' : undefined}
              disabled={model.pending.value !== null}
              onChange={() => model.selectGateway(option.id)}
            />
            <span class="gateway__name">{gatewayName(i18n, option)}</span>
            {option.flow === 'redirect' && <Icon name="external" class="icon--sm gateway__hint" />}
          </label>
        ))}
      </div>
    </fieldset>
  );
}

function Spinner() {
  return <span class="spinner" aria-hidden="true" />;
}

/** What the page says while its post is under way: a save page takes no payment. */
const processingOf = (view: CheckoutView): MessageKey => (view.saveCard ? 'save.processing' : 'status.processing');

/**
 * The second step of cancelling, in place of the form's fields so that Enter in a field
 * can never confirm it. "Keep paying" is a link to the page itself, which works without
 * JavaScript too.
 */
function CancelConfirmation() {
  const { model, i18n } = useScreen();
  const pending = model.pending.value;
  // A sign-up's or a save page's link stays valid after a cancel; a payment link stops working.
  const view = model.view.value;
  return (
    <div class="confirm" role="group" aria-labelledby="cancel-confirm-title">
      <h2 class="confirm__title" id="cancel-confirm-title" tabIndex={-1}>
        {i18n.t(keyOf(view, { pay: 'cancel.title', subscription: 'subscription.cancel.title', save: 'save.cancel.title' }))}
      </h2>
      <p class="confirm__text">
        {i18n.t(keyOf(view, { pay: 'cancel.body', subscription: 'subscription.cancel.body', save: 'save.cancel.body' }), { merchant: view.merchantName })}
      </p>
      <input type="hidden" name="confirm" value="1" />
      <div class="actions">
        <button class="button button--danger" type="submit" name="action" value="cancel" formnovalidate disabled={pending !== null}>
          {pending === 'cancel' && <Spinner />}
          <span>{i18n.t(keyOf(view, { pay: 'cancel.confirm', subscription: 'subscription.cancel.confirm', save: 'save.cancel.confirm' }))}</span>
        </button>
        <a
          class="button button--quiet"
          href=""
          onClick={(event) => {
            event.preventDefault();
            model.keepPaying();
          }}
        >
          {i18n.t(keyOf(view, { pay: 'cancel.keep', subscription: 'subscription.cancel.keep', save: 'save.cancel.keep' }))}
        </a>
      </div>
      <p class="sr-only" role="status">
        {pending === 'cancel' ? i18n.t(processingOf(view)) : ''}
      </p>
    </div>
  );
}

export function PaymentForm() {
  const { model, i18n } = useScreen();
  const money = useMoney();
  const view = model.view.value;
  const gateway = model.gateway.value;
  const pending = model.pending.value;
  const amount = money(view.totalPrice);
  // The gateway's own fields took over its redirect (hosted-fields): the customer pays here.
  const hosted = gateway?.hosted && model.hosted.value?.gateway === gateway.id;

  function onSubmit(event: TargetedEvent<HTMLFormElement, SubmitEvent>) {
    event.preventDefault();
    const submitter = event.submitter as HTMLButtonElement | null;
    if (submitter?.value !== 'cancel') return void model.pay();
    if (model.confirmingCancel.value) void model.cancel();
    else model.askCancel();
  }

  const progress: MessageKey | null = model.redirecting.value ? 'status.redirecting' : pending === 'pay' ? processingOf(view) : null;
  const payLabel =
    progress && pending === 'pay'
      ? i18n.t(progress)
      : gateway?.flow === 'redirect' && !hosted
        ? i18n.t('action.continue', { gateway: gatewayName(i18n, gateway) })
        : i18n.t(keyOf(view, { pay: 'action.pay', subscription: 'action.subscribe', save: 'action.saveCard' }), { amount });

  // Asked to confirm a cancel, the same form holds only that question (CancelConfirmation).
  return (
    <form class="payment" method="post" action="" onSubmit={onSubmit} aria-busy={pending ? 'true' : undefined}>
      <input type="hidden" name="csrf" value={view.csrf} />
      {model.confirmingCancel.value ? (
        <CancelConfirmation />
      ) : (
        <>
          {/* Tells the server, for posts made without JavaScript, which fields the customer saw. */}
          <input type="hidden" name="fields_of" value={gateway?.id ?? ''} />
          <FormAlert />
          <GatewayChoice />

          {gateway && gateway.fields.length > 0 && (
            <div class="fields">
              {gateway.fields.map((field) => (
                <Field field={field} key={`${gateway.id}:${field.name}`} />
              ))}
            </div>
          )}
          {/* Where the processor's script draws its fields (stripe-element.ts); they are its, not ours. */}
          {gateway?.hosted && <div id="hosted-fields" class="fields" />}
          {gateway?.flow === 'redirect' && !hosted && (
            <p class="redirect-hint">{i18n.t('gateway.redirectHint', { gateway: gatewayName(i18n, gateway), amount })}</p>
          )}

          {view.subscription && <ConsentText terms={view.subscription} />}
          <div class="actions">
            <button
              class="button button--primary"
              type="submit"
              name="action"
              value="pay"
              // Until the retry time; without JavaScript the server says so again if pressed early.
              disabled={pending !== null || (model.interactive.value && model.locked.value)}
            >
              {pending === 'pay' ? <Spinner /> : <Icon name="lock" class="icon--sm" />}
              <span>{payLabel}</span>
            </button>
            {!view.subscription && !view.saveCard && <Expiry />}
            <button class="button button--quiet" type="submit" name="action" value="cancel" formnovalidate disabled={pending !== null}>
              {pending === 'cancel' && <Spinner />}
              <span>{i18n.t(keyOf(view, { pay: 'action.cancel', subscription: 'subscription.cancel.action', save: 'save.cancel.action' }))}</span>
            </button>
          </div>
          <p class="sr-only" role="status">
            {progress ? i18n.t(progress) : ''}
          </p>
        </>
      )}
    </form>
  );
}
