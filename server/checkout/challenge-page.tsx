import { type DocumentAssets, renderStaticPage } from '../../widget/screen/document';
import { Chrome } from '../../widget/screen/components/Chrome';
import { ChallengePanel } from '../../widget/screen/components/ChallengePanel';
import { formatMoney } from '../../widget/i18n/format';
import type { CheckoutView } from '../../widget/screen/view';
import { getTranslator } from '../../widget/i18n/server';

// The issuer's challenge as a page of its own: the step a payment takes without
// JavaScript (the hydrated page shows the same panel as a dialog). Its form posts the
// answer to this page's URL; the server then sends the customer back to the payment.

export function renderChallengePage(view: CheckoutView, assets: DocumentAssets): string {
  // Saving a card (save-routes.ts) or signing up (signup-routes.ts) pays nothing now: its own title and words.
  const saving = view.saveCard === true || view.subscription !== undefined;
  const i18n = getTranslator(view.language);
  const embed = view.embed !== null;
  return renderStaticPage({
    language: view.language,
    title: i18n.t(saving ? 'challenge.titleSave' : 'challenge.title'),
    assets,
    embed,
    body: (
      <Chrome i18n={i18n} embed={embed}>
        <main class="layout layout--single">
          <section class="pane">
            <ChallengePanel
              i18n={i18n}
              merchant={view.merchantName}
              amount={formatMoney(view.totalPrice, view.currency, view.exponent, i18n.locale)}
              heading="h1"
              saving={saving}
              csrf={view.csrf}
            />
          </section>
        </main>
      </Chrome>
    ),
  });
}
