import type { ActiveSession } from './accounts';
import type { DashboardText } from './i18n';
import { Csrf, renderPage } from './layout';
import type { ApiKey, NewApiKey } from '../store/api-keys';

// API keys (owners): the list, a new key's secret shown once, roll and revoke.

/** Overlap windows offered when rolling, in hours. */
export const ROLL_WINDOWS_H = [0, 1, 24, 168] as const;

interface Props {
  text: DashboardText;
  session: ActiveSession;
  keys: ApiKey[];
  now: Date;
  /** A secret just made (created or rolled): shown this once. */
  secret?: NewApiKey;
}

function status(text: DashboardText, key: ApiKey, now: Date): string {
  if (key.revoked_at) return text.t('keys.revoked', { date: text.dateTime(key.revoked_at) });
  if (key.previous_expires_at && key.previous_expires_at > now.toISOString()) return text.t('keys.overlap', { date: text.dateTime(key.previous_expires_at) });
  return text.t('keys.active');
}

export function keysPage(p: Props): string {
  const { text, session } = p;
  const { t } = text;
  return renderPage(
    { text, session, title: t('keys.title'), active: 'keys' },
    <>
      {p.secret && (
        <div class="notice info" role="status">
          <p>{t('keys.secretOnce', { label: p.secret.label })}</p>
          <p>
            <code class="secret" data-testid="secret-key">{p.secret.secret_key}</code>
          </p>
        </div>
      )}
      <div class="scroll" tabindex={0} role="region" aria-label={t('keys.title')}>
        <table>
          <thead>
            <tr>
              <th scope="col">{t('keys.label')}</th>
              <th scope="col">{t('keys.publicKey')}</th>
              <th scope="col">{t('keys.status')}</th>
              <th scope="col">{t('keys.created')}</th>
              <th scope="col">{t('keys.actions')}</th>
            </tr>
          </thead>
          <tbody>
            {p.keys.map((k) => (
              <tr key={k.id} data-public-key={k.public_key}>
                <td>{k.label}</td>
                <td>
                  <code>{k.public_key}</code>
                </td>
                <td>{status(text, k, p.now)}</td>
                <td>{text.dateTime(k.created_at)}</td>
                <td>
                  {!k.revoked_at && (
                    <div class="row-actions">
                      <form method="post" action={`/dashboard/keys/${k.id}/roll/`}>
                        <Csrf token={session.csrf} />
                        <label for={`window-${k.id}`}>{t('keys.rollWindow')}</label>
                        <select id={`window-${k.id}`} name="overlap_hours">
                          {ROLL_WINDOWS_H.map((h) => (
                            <option key={h} value={String(h)} selected={h === 24}>
                              {t(`keys.window.${h}`)}
                            </option>
                          ))}
                        </select>
                        <button type="submit">{t('keys.roll')}</button>
                      </form>
                      <form method="post" action={`/dashboard/keys/${k.id}/revoke/`}>
                        <Csrf token={session.csrf} />
                        <button type="submit">{t('keys.revoke')}</button>
                      </form>
                    </div>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <h2>{t('keys.create')}</h2>
      <form method="post" action="/dashboard/keys/" class="card">
        <Csrf token={session.csrf} />
        <label for="key-label">{t('keys.label')}</label>
        <input id="key-label" name="label" required maxLength={100} autocomplete="off" />
        <button type="submit" class="primary">
          {t('keys.createSubmit')}
        </button>
      </form>
    </>,
  );
}

export function revokeConfirmPage(p: { text: DashboardText; session: ActiveSession; key: ApiKey }): string {
  const { text, session, key } = p;
  const { t } = text;
  return renderPage(
    { text, session, title: t('keys.revoke'), active: 'keys' },
    <>
      <p>{t('keys.revokeConfirm', { label: key.label, publicKey: key.public_key })}</p>
      <div class="row-actions">
        <form method="post" action={`/dashboard/keys/${key.id}/revoke/`}>
          <Csrf token={session.csrf} />
          <input type="hidden" name="confirm" value="yes" />
          <button type="submit" class="primary">
            {t('keys.revokeSubmit')}
          </button>
        </form>
        <a href="/dashboard/keys/">{t('keys.cancel')}</a>
      </div>
    </>,
  );
}
