import type { ComponentChildren } from 'preact';
import type { Translator } from '../../i18n/messages';
import { LockIcon } from './icons';

/** The frame around every screen; embed mode drops it, the merchant's page is the frame. */
export function Chrome({ i18n, embed, children }: { i18n: Translator; embed: boolean; children: ComponentChildren }) {
  return (
    <div class={embed ? 'page page--embed' : 'page'}>
      {!embed && (
        <header class="topbar">
          <span class="topbar__secure">
            <LockIcon class="icon--sm" />
            {i18n.t('page.secure')}
          </span>
        </header>
      )}
      {children}
    </div>
  );
}
