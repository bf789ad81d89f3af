import type { ActiveSession } from './accounts';
import type { DashboardText } from './i18n';
import { Csrf, renderPage } from './layout';
import type { SecondFactorState } from './second-factor';

// A user's own sign-in security: the password changed, the authenticator (TOTP) set up,
// confirmed and turned off, and the recovery codes shown the one time they exist in clear.

interface Signed {
  text: DashboardText;
  session: ActiveSession;
}

const Notice = ({ error, info }: { error?: string; info?: string }) =>
  error ? (
    <p class="notice error" role="alert">
      {error}
    </p>
  ) : info ? (
    <p class="notice info" role="status">
      {info}
    </p>
  ) : null;

/** Change password: the current one first (a stolen session alone cannot), then the new one. */
function PasswordForm({ text, session }: Signed) {
  const { t } = text;
  return (
    <>
      <h2>{t('security.password')}</h2>
      <p>{t('security.passwordBody')}</p>
      <form method="post" action="/dashboard/account/security/password/" class="card">
        <Csrf token={session.csrf} />
        <input type="hidden" name="username" autocomplete="username" value={session.email} />
        <label for="current-password">{t('security.currentPassword')}</label>
        <input id="current-password" name="current" type="password" autocomplete="current-password" required />
        <label for="new-password">{t('invite.password')}</label>
        <input id="new-password" name="password" type="password" autocomplete="new-password" required minLength={12} maxLength={256} aria-describedby="new-password-hint" />
        <p id="new-password-hint" class="hint">
          {t('invite.passwordHint')}
        </p>
        <button type="submit">{t('security.changePassword')}</button>
      </form>
    </>
  );
}

/** The QR code as an image of our own making (img-src allows data:), with its meaning in words. */
const qrSrc = (svg: string) => `data:image/svg+xml;base64,${Buffer.from(svg).toString('base64')}`;

export function securityPage(p: Signed & { state: SecondFactorState; error?: string; info?: string }): string {
  const { text, state } = p;
  const { t } = text;
  const csrf = p.session.csrf;
  return renderPage(
    { text, session: p.session, title: t('security.title'), active: 'security' },
    <>
      <Notice error={p.error} info={p.info} />
      <PasswordForm text={text} session={p.session} />
      <h2>{t('security.totp')}</h2>
      {state.kind === 'off' && (
        <>
          <p>{t('security.offBody')}</p>
          <form method="post" action="/dashboard/account/security/totp/" class="card">
            <Csrf token={csrf} />
            <button type="submit" class="primary">
              {t('security.start')}
            </button>
          </form>
        </>
      )}
      {state.kind === 'pending' && (
        <>
          <ol class="steps">
            <li>{t('security.step.scan')}</li>
            <li>{t('security.step.confirm')}</li>
          </ol>
          <img class="qr" src={qrSrc(state.enrolment.qrSvg)} width={240} height={240} alt={t('security.qrAlt')} />
          <p>{t('security.manual')}</p>
          <dl class="facts">
            <dt>{t('security.secret')}</dt>
            <dd>
              <code class="secret" data-testid="totp-secret">{state.enrolment.secret}</code>
            </dd>
            <dt>{t('security.uri')}</dt>
            <dd>
              <code class="secret" data-testid="totp-uri">{state.enrolment.uri}</code>
            </dd>
          </dl>
          <form method="post" action="/dashboard/account/security/totp/confirm/" class="card">
            <Csrf token={csrf} />
            <label for="confirm-code">{t('security.code')}</label>
            <input id="confirm-code" name="code" inputMode="numeric" autocomplete="one-time-code" pattern="[0-9 ]{6,7}" maxLength={7} required />
            <button type="submit" class="primary">
              {t('security.confirm')}
            </button>
          </form>
        </>
      )}
      {state.kind === 'on' && (
        <>
          <p class="notice info" role="status">
            {t('security.onBody', { count: state.recoveryCodesLeft })}
          </p>
          <h3>{t('security.disable')}</h3>
          <form method="post" action="/dashboard/account/security/totp/disable/" class="card">
            <Csrf token={csrf} />
            <input type="hidden" name="username" autocomplete="username" value={p.session.email} />
            <label for="disable-password">{t('signIn.password')}</label>
            <input id="disable-password" name="password" type="password" autocomplete="current-password" required />
            <label for="disable-code">{t('security.codeOrRecovery')}</label>
            <input id="disable-code" name="code" autocomplete="one-time-code" maxLength={64} required />
            <button type="submit">{t('security.disableSubmit')}</button>
          </form>
        </>
      )}
    </>,
  );
}

export function recoveryCodesPage(p: Signed & { codes: string[] }): string {
  const { text } = p;
  const { t } = text;
  return renderPage(
    { text, session: p.session, title: t('security.enabled'), active: 'security' },
    <>
      <p class="notice info" role="status">
        {t('security.codesOnce', { count: p.codes.length })}
      </p>
      <ul class="codes" data-testid="recovery-codes">
        {p.codes.map((code) => (
          <li key={code}>
            <code>{code}</code>
          </li>
        ))}
      </ul>
      <p>
        <a href="/dashboard/account/security/">{t('security.done')}</a>
      </p>
    </>,
  );
}
