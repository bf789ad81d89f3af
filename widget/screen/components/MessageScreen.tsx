import type { Translator } from '../../i18n/messages';
import { Chrome } from './Chrome';
import { Icon } from './icons';

/** The pages that say one thing and offer nothing: which one, by its strings' prefix. */
export type Message = 'notFound' | 'tooMany' | 'notEmbeddable';

/**
 * For an unknown or malformed token, a page not allowed to embed the payment, or a visitor
 * over a rate limit: nothing about any transaction, only the language.
 */
export function MessageScreen({ i18n, message }: { i18n: Translator; message: Message }) {
  return (
    <Chrome i18n={i18n} embed={false}>
      <main class="layout layout--single">
        <section class="pane">
          <div class="status status--neutral">
            <div class="status__badge">
              <Icon name="search" />
            </div>
            <h1 class="status__title">{i18n.t(`${message}.title`)}</h1>
            <p class="status__text">{i18n.t(`${message}.body`)}</p>
          </div>
        </section>
      </main>
    </Chrome>
  );
}
