import type { DashboardText } from './i18n';
import { renderPage } from './layout';
import type { OpenInvite } from '../store/users';
import { setsFirstPassword } from './accounts';

// The pages a visitor sees before signing in: sign-in, an invite, and a forgotten password.

export interface Notice {
  kind: 'error' | 'info';
  text: string;
}

const NoticeBox = ({ notice }: { notice?: Notice }) =>
  notice ? (
    <p class={`notice ${notice.kind}`} role={notice.kind === 'error' ? 'alert' : 'status'}>
      {notice.text}
    </p>
  ) : null;

export function signInPage(text: DashboardText, p: { csrf: string; email?: string; notice?: Notice }): string {
  const { t } = text;
  return renderPage(
    { text, title: t('signIn.title') },
    <>
      <NoticeBox notice={p.notice} />
      <form method="post" action="/dashboard/sign-in/" class="card">
        <input type="hidden" name="csrf" value={p.csrf} />
        <label for="email">{t('signIn.email')}</label>
        <input id="email" name="email" type="email" autocomplete="username" required value={p.email ?? ''} />
        <label for="password">{t('signIn.password')}</label>
        <input id="password" name="password" type="password" autocomplete="current-password" required />
        <button type="submit" class="primary">
          {t('signIn.submit')}
        </button>
      </form>
      <p>
        <a href="/dashboard/sign-in/forgot/">{t('signIn.forgot')}</a>
      </p>
    </>,
  );
}

/** "Forgot your password?": the email to send a reset link to; once sent, what to expect. */
export function forgotPage(text: DashboardText, p: { csrf: string; email?: string; sent?: boolean; notice?: Notice }): string {
  const { t } = text;
  return renderPage(
    { text, title: t('reset.title') },
    <>
      <NoticeBox notice={p.sent ? { kind: 'info', text: t('reset.sent', { email: p.email ?? '' }) } : p.notice} />
      {!p.sent && (
        <>
          <p>{t('reset.intro')}</p>
          <form method="post" action="/dashboard/sign-in/forgot/" class="card">
            <input type="hidden" name="csrf" value={p.csrf} />
            <label for="email">{t('signIn.email')}</label>
            <input id="email" name="email" type="email" autocomplete="username" required maxLength={320} value={p.email ?? ''} />
            <button type="submit" class="primary">
              {t('reset.submit')}
            </button>
          </form>
        </>
      )}
      <p>
        <a href="/dashboard/sign-in/">{t('reset.back')}</a>
      </p>
    </>,
  );
}

/** A reset link's page: the new password, the link's token carried in the form. */
export function resetPage(text: DashboardText, p: { csrf: string; token: string; email: string; notice?: Notice }): string {
  const { t } = text;
  return renderPage(
    { text, title: t('reset.newTitle') },
    <>
      <p>{t('reset.newIntro', { email: p.email })}</p>
      <NoticeBox notice={p.notice} />
      <form method="post" action="/dashboard/sign-in/reset/" class="card">
        <input type="hidden" name="csrf" value={p.csrf} />
        <input type="hidden" name="token" value={p.token} />
        <input type="hidden" name="username" autocomplete="username" value={p.email} />
        <label for="password">{t('invite.password')}</label>
        <input id="password" name="password" type="password" autocomplete="new-password" required minLength={12} maxLength={256} aria-describedby="password-hint" />
        <p id="password-hint" class="hint">
          {t('invite.passwordHint')}
        </p>
        <button type="submit" class="primary">
          {t('reset.save')}
        </button>
      </form>
    </>,
  );
}

/** The sign-in's second step for an account with an authenticator. */
export function codePage(text: DashboardText, p: { csrf: string; notice?: Notice }): string {
  const { t } = text;
  return renderPage(
    { text, title: t('signIn.codeTitle') },
    <>
      <NoticeBox notice={p.notice} />
      <form method="post" action="/dashboard/sign-in/code/" class="card">
        <input type="hidden" name="csrf" value={p.csrf} />
        <label for="code">{t('signIn.code')}</label>
        <input id="code" name="code" autocomplete="one-time-code" maxLength={64} required aria-describedby="code-hint" />
        <p id="code-hint" class="hint">
          {t('signIn.codeHint')}
        </p>
        <button type="submit" class="primary">
          {t('signIn.submit')}
        </button>
      </form>
      <p>
        <a href="/dashboard/sign-in/">{t('signIn.startAgain')}</a>
      </p>
    </>,
  );
}

export function invitePage(text: DashboardText, p: { csrf: string; invite: OpenInvite; environmentName: string; notice?: Notice }): string {
  const { t } = text;
  const { invite } = p;
  const existing = !setsFirstPassword(invite);
  return renderPage(
    { text, title: existing ? t('invite.titleExisting', { environment: p.environmentName }) : t('invite.title') },
    <>
      <p>{t('invite.intro', { environment: p.environmentName, role: t(`env.role.${invite.role}`), email: invite.email })}</p>
      {/* The same words whether or not the account has a password: whoever saw the link on screen learns nothing. */}
      {!invite.proves_email && <p>{t('invite.noPasswordYet', { email: invite.email })}</p>}
      <NoticeBox notice={p.notice} />
      <form method="post" class="card">
        <input type="hidden" name="csrf" value={p.csrf} />
        {/* For password managers: the account this password belongs to. */}
        <input type="hidden" name="username" autocomplete="username" value={invite.email} />
        <label for="password">{existing ? t('invite.currentPassword') : t('invite.password')}</label>
        {existing ? (
          <input id="password" name="password" type="password" autocomplete="current-password" required />
        ) : (
          <>
            <input id="password" name="password" type="password" autocomplete="new-password" required minLength={12} maxLength={256} aria-describedby="password-hint" />
            <p id="password-hint" class="hint">
              {t('invite.passwordHint')}
            </p>
          </>
        )}
        <button type="submit" class="primary">
          {existing ? t('invite.submitExisting') : t('invite.submit')}
        </button>
      </form>
    </>,
  );
}

export function messagePage(text: DashboardText, title: string, body: string, back?: { href: string; label: string }): string {
  return renderPage(
    { text, title },
    <>
      <p>{body}</p>
      {back && <p><a href={back.href}>{back.label}</a></p>}
    </>,
  );
}
