import type { ComponentChildren } from 'preact';
import { htmlLang, LANGUAGES } from '../../i18n/language';
import type { Translator } from '../../i18n/messages';
import { Icon } from './icons';

export interface BackLink {
  href: string;
  merchant: string;
}

/**
 * The page in each of its languages: plain links to `?lang=` (the server renders that
 * language; the form posts back to the same URL, so it stays), each named in its own
 * language, as its own language (`lang`, `hreflang`) for screen readers and search.
 */
export function LanguageSwitcher({ i18n }: { i18n: Translator }) {
  return (
    <nav class="languages" aria-label={i18n.t('language.label')}>
      <ul class="languages__list">
        {LANGUAGES.map((language) => (
          <li key={language}>
            <a
              class="languages__link"
              href={`?lang=${language}`}
              hreflang={htmlLang(language)}
              lang={htmlLang(language)}
              aria-current={language === i18n.language ? 'true' : undefined}
            >
              {i18n.t(`language.${language}`)}
            </a>
          </li>
        ))}
      </ul>
    </nav>
  );
}

/**
 * The frame around every screen; embed mode drops it, the merchant's page is the frame.
 * `back` is the way to the shop that leaves the payment open (a plain link, no request).
 * `foot`: what goes in the footer, the language switcher on pages with a token to reload.
 */
export function Chrome({
  i18n,
  embed,
  back,
  foot,
  testMode,
  children,
}: {
  i18n: Translator;
  embed: boolean;
  back?: BackLink;
  foot?: ComponentChildren;
  /** A sandbox's page: a badge in the top bar says no real money moves (no extra line to push Pay down). */
  testMode?: boolean;
  children: ComponentChildren;
}) {
  return (
    <div class={embed ? 'page page--embed' : 'page'}>
      {!embed && (
        <header class="topbar">
          {back && (
            <a class="topbar__back" href={back.href}>
              <Icon name="back" class="icon--sm" />
              <span>{i18n.t('action.back', { merchant: back.merchant })}</span>
            </a>
          )}
          <span class="topbar__secure">
            <Icon name="lock" class="icon--sm" />
            <span class="topbar__secure-text">{i18n.t('page.secure')}</span>
          </span>
          {testMode && <span class="topbar__test">{i18n.t('page.testMode')}</span>}
        </header>
      )}
      {children}
      {foot && !embed && <footer class="footer">{foot}</footer>}
    </div>
  );
}
