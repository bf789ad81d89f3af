import type { ComponentChildren } from 'preact';
import type { Translator } from '../../i18n/messages';
import { BackIcon, LockIcon } from './icons';

export interface BackLink {
  href: string;
  merchant: string;
}

/**
 * The frame around every screen; embed mode drops it, the merchant's page is the frame.
 * `back` is the way to the shop that leaves the payment open (a plain link, no request).
 */
export function Chrome({ i18n, embed, back, children }: { i18n: Translator; embed: boolean; back?: BackLink; children: ComponentChildren }) {
  return (
    <div class={embed ? 'page page--embed' : 'page'}>
      {!embed && (
        <header class="topbar">
          {back && (
            <a class="topbar__back" href={back.href}>
              <BackIcon class="icon--sm" />
              <span>{i18n.t('action.back', { merchant: back.merchant })}</span>
            </a>
          )}
          <span class="topbar__secure">
            <LockIcon class="icon--sm" />
            <span class="topbar__secure-text">{i18n.t('page.secure')}</span>
          </span>
        </header>
      )}
      {children}
    </div>
  );
}
