import type { Translator } from '../../i18n/messages';
import { type BackLink, Chrome } from './Chrome';
import { Icon } from './icons';

/** The pages that say one thing and offer nothing: which one, by its strings' prefix. */
export type Message = 'notFound' | 'tooMany' | 'notEmbeddable' | 'unpayable';

/**
 * For an unknown or malformed token, a page not allowed to embed the payment, or a visitor
 * over a rate limit: nothing about any transaction, only the language. A payment no method
 * can pay (`unpayable`) also offers the way back to the shop, when the merchant gave one.
 */
export function MessageScreen({ i18n, message, back }: { i18n: Translator; message: Message; back?: BackLink }) {
  return (
    <Chrome i18n={i18n} embed={false} back={back}>
      <main class="layout layout--single">
        <section class="pane">
          <div class="status status--neutral">
            <div class="status__badge">
              <Icon name={message === 'unpayable' ? 'alert' : 'search'} />
            </div>
            <h1 class="status__title">{i18n.t(`${message}.title`)}</h1>
            <p class="status__text">{i18n.t(`${message}.body`)}</p>
            {back && (
              <a class="button button--primary status__back" href={back.href}>
                <Icon name="back" class="icon--sm" />
                <span>{i18n.t('action.back', { merchant: back.merchant })}</span>
              </a>
            )}
          </div>
        </section>
      </main>
    </Chrome>
  );
}
