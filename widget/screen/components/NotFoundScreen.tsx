import type { Translator } from '../../i18n/messages';
import { Chrome } from './Chrome';
import { SearchIcon } from './icons';

/** For an unknown or malformed token: nothing about any transaction, only the language. */
export function NotFoundScreen({ i18n }: { i18n: Translator }) {
  return (
    <Chrome i18n={i18n} embed={false}>
      <main class="layout layout--single">
        <section class="pane">
          <div class="status status--neutral">
            <div class="status__badge">
              <SearchIcon />
            </div>
            <h1 class="status__title">{i18n.t('notFound.title')}</h1>
            <p class="status__text">{i18n.t('notFound.body')}</p>
          </div>
        </section>
      </main>
    </Chrome>
  );
}
