// The issuer's challenge inside the payment page: a modal dialog (the rest of the page is
// inert while it is open, so focus stays in it, and screen readers announce it by its
// title and text). Loaded only when a payment is challenged (client.tsx), so no other
// view pays for it.
import { render } from 'preact';
import type { Translator } from '../i18n/messages';
import { CHALLENGE_BODY_ID, CHALLENGE_TITLE_ID, ChallengePanel } from './components/ChallengePanel';
import { formatMoney } from '../i18n/format';
import type { CheckoutModel } from './model';

/**
 * A modal dialog makes the page inert, but Tab still leaves it for the browser's own
 * controls: from the last button it goes round to the first, and back with Shift+Tab.
 */
function keepFocusIn(event: KeyboardEvent): void {
  if (event.key !== 'Tab') return;
  const buttons = [...(event.currentTarget as HTMLDialogElement).querySelectorAll('button')];
  const [first, last] = [buttons[0], buttons.at(-1)];
  const edge = event.shiftKey ? first : last;
  if (!edge || document.activeElement !== edge) return;
  event.preventDefault();
  (event.shiftKey ? last : first)?.focus();
}

function ChallengeDialog({ model, i18n }: { model: CheckoutModel; i18n: Translator }) {
  const view = model.view.value;
  return (
    <dialog
      // Opened as it enters the page (rendered once: the model's view does not change while it is open).
      ref={(dialog) => {
        if (dialog && !dialog.open) dialog.showModal();
      }}
      class="challenge-dialog"
      aria-labelledby={CHALLENGE_TITLE_ID}
      aria-describedby={CHALLENGE_BODY_ID}
      onKeyDown={keepFocusIn}
      // Escape leaves the challenge: the payment stays open.
      onCancel={(event) => {
        event.preventDefault();
        void model.answerChallenge('abandoned');
      }}
    >
      <ChallengePanel
        i18n={i18n}
        merchant={view.merchantName}
        amount={formatMoney(view.totalPrice, view.currency, view.exponent, i18n.locale)}
        heading="h2"
        // A sign-up stores the card as the save page does: nothing is paid now.
        saving={view.saveCard === true || view.subscription !== undefined}
        onAnswer={(answer) => void model.answerChallenge(answer)}
      />
    </dialog>
  );
}

/** Shows the model's open challenge until it is answered. */
export function showChallenge(model: CheckoutModel, i18n: Translator): void {
  if (!model.challenge.value) return;
  const host = document.createElement('div');
  document.body.append(host);
  render(<ChallengeDialog model={model} i18n={i18n} />, host);
  const stop = model.challenge.subscribe((url) => {
    if (url) return;
    render(null, host);
    host.remove();
    queueMicrotask(() => stop());
  });
}
