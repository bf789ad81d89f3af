import type { ActiveSession } from './accounts';
import type { DashboardText } from './i18n';
import { Csrf, renderPage } from './layout';
import { type ApiKey, olderSecretUntil } from '../store/api-keys';

// API keys (owners): the list with every secret each key still accepts, a new secret shown
// once, and the confirmations of a roll, of ending an older secret and of a revoke.

/** Overlap windows offered when rolling, in hours. */
export const ROLL_WINDOWS_H = [0, 1, 24, 168] as const;
export type RollWindow = (typeof ROLL_WINDOWS_H)[number];

interface Signed {
  text: DashboardText;
  session: ActiveSession;
}

interface Props extends Signed {
  keys: ApiKey[];
  now: Date;
  /** The page a create or roll redirects to: the new secret, or (reloaded) that it was shown already. */
  reveal?: { label: string; secret: string | undefined };
  /** A refused create form: its label is not one. */
  labelInvalid?: boolean;
}

/** What a keys page answer may add to the list. */
export type KeysPageExtra = Pick<Props, 'reveal' | 'labelInvalid'>;

const keyPath = (key: ApiKey, action: string) => `/dashboard/keys/${key.id}/${action}/`;

function Reveal({ text, reveal }: { text: DashboardText; reveal: NonNullable<Props['reveal']> }) {
  const { t } = text;
  if (reveal.secret === undefined) {
    return (
      <p class="notice info" role="status" data-testid="secret-shown">
        {t('keys.alreadyShown', { label: reveal.label })}
      </p>
    );
  }
  return (
    <div class="notice info" role="status">
      <p>{t('keys.secretOnce', { label: reveal.label })}</p>
      <p>
        <code class="secret" data-testid="secret-key">
          {reveal.secret}
        </code>
      </p>
    </div>
  );
}

/** The secrets the key accepts now: the current one and, within its window, the older one. */
function Secrets({ text, session, keyRow, now }: Signed & { keyRow: ApiKey; now: Date }) {
  const { t } = text;
  if (keyRow.revoked_at) return <>{t('keys.revoked', { date: text.dateTime(keyRow.revoked_at) })}</>;
  const until = olderSecretUntil(keyRow, now);
  return (
    <ul>
      <li>{t('keys.currentSecret', { date: text.dateTime(keyRow.rolled_at ?? keyRow.created_at) })}</li>
      {until && (
        <li data-testid="older-secret">
          {t('keys.olderSecret', { date: text.dateTime(until) })}
          <form method="post" action={keyPath(keyRow, 'end-older')}>
            <Csrf token={session.csrf} />
            <button type="submit">{t('keys.endOlder')}</button>
          </form>
        </li>
      )}
    </ul>
  );
}

function KeyActions({ text, session, keyRow }: Signed & { keyRow: ApiKey }) {
  const { t } = text;
  return (
    <div class="row-actions">
      <form method="post" action={keyPath(keyRow, 'roll')}>
        <Csrf token={session.csrf} />
        <label for={`window-${keyRow.id}`}>{t('keys.rollWindow')}</label>
        <select id={`window-${keyRow.id}`} name="overlap_hours">
          {ROLL_WINDOWS_H.map((h) => (
            <option key={h} value={String(h)} selected={h === 24}>
              {t(`keys.window.${h}`)}
            </option>
          ))}
        </select>
        <button type="submit">{t('keys.roll')}</button>
      </form>
      <form method="post" action={keyPath(keyRow, 'revoke')}>
        <Csrf token={session.csrf} />
        <button type="submit">{t('keys.revoke')}</button>
      </form>
    </div>
  );
}

function CreateForm({ text, session, labelInvalid }: Signed & { labelInvalid?: boolean }) {
  const { t } = text;
  return (
    <form method="post" action="/dashboard/keys/" class="card">
      <Csrf token={session.csrf} />
      <label for="key-label">{t('keys.label')}</label>
      <input id="key-label" name="label" required maxLength={100} autocomplete="off" aria-invalid={labelInvalid ? 'true' : undefined} aria-describedby={labelInvalid ? 'label-error' : undefined} />
      {labelInvalid && (
        <p class="field-error" id="label-error" data-testid="error-label">
          {t('keys.error.label')}
        </p>
      )}
      <button type="submit" class="primary">
        {t('keys.createSubmit')}
      </button>
    </form>
  );
}

export function keysPage(p: Props): string {
  const { text, session } = p;
  const { t } = text;
  return renderPage(
    { text, session, title: t('keys.title'), active: 'keys' },
    <>
      {p.reveal && <Reveal text={text} reveal={p.reveal} />}
      {p.labelInvalid && (
        <p class="notice error" role="alert">
          {t('keys.invalid')}
        </p>
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
                <td>
                  <Secrets text={text} session={session} keyRow={k} now={p.now} />
                </td>
                <td>{text.dateTime(k.created_at)}</td>
                <td>{!k.revoked_at && <KeyActions text={text} session={session} keyRow={k} />}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <h2>{t('keys.create')}</h2>
      <CreateForm text={text} session={session} labelInvalid={p.labelInvalid} />
    </>,
  );
}

/** A confirmation: what will happen, a button that does it, and a way back. */
function confirmPage(p: Signed & { title: string; lines: string[]; action: { path: string; fields: Record<string, string>; submit: string }; cancel: string; refused?: boolean }): string {
  const { text, session } = p;
  const lines = p.lines.map((line) => <p key={line}>{line}</p>);
  return renderPage(
    { text, session, title: p.title, active: 'keys' },
    <>
      {p.refused ? (
        <div class="notice error" role="alert">
          {lines}
        </div>
      ) : (
        lines
      )}
      <div class="row-actions">
        <form method="post" action={p.action.path}>
          <Csrf token={session.csrf} />
          {Object.entries(p.action.fields).map(([name, value]) => (
            <input key={name} type="hidden" name={name} value={value} />
          ))}
          <button type="submit" class="primary">
            {p.action.submit}
          </button>
        </form>
        <a href="/dashboard/keys/">{p.cancel}</a>
      </div>
    </>,
  );
}

/**
 * Before a roll: what the chosen window means for the secret in use (and for an older one
 * still working), or why this roll is refused: an overlap while an older secret is still
 * within its own would end that one before the time it was promised.
 */
export function rollConfirmPage(p: Signed & { key: ApiKey; hours: RollWindow; now: Date }): string {
  const { text, key, hours, now } = p;
  const { t } = text;
  const until = olderSecretUntil(key, now);
  const names = { label: key.label, publicKey: key.public_key };
  if (hours > 0 && until) {
    const lines = [t('keys.rollRefused', { ...names, date: text.dateTime(until) }), t('keys.rollRefusedWays')];
    return confirmPage({ ...p, title: t('keys.roll'), lines, action: { path: keyPath(key, 'end-older'), fields: {}, submit: t('keys.endOlder') }, cancel: t('keys.back'), refused: true });
  }
  const current = hours > 0 ? t('keys.rollKeeps', { date: text.dateTime(new Date(now.getTime() + hours * 3600_000).toISOString()) }) : t('keys.rollStopsNow');
  const lines = [t('keys.rollConfirm', names), current, ...(until ? [t('keys.rollOlderKeeps', { date: text.dateTime(until) })] : [])];
  return confirmPage({ ...p, title: t('keys.roll'), lines, action: { path: keyPath(key, 'roll'), fields: { overlap_hours: String(hours), confirm: 'yes' }, submit: t('keys.rollSubmit') }, cancel: t('keys.back') });
}

/** Before ending an older secret early (a leak): until when it was to work, and that it stops now. */
export function endOlderConfirmPage(p: Signed & { key: ApiKey; until: string }): string {
  const { text, key } = p;
  const { t } = text;
  const lines = [t('keys.endOlderConfirm', { label: key.label, publicKey: key.public_key, date: text.dateTime(p.until) })];
  return confirmPage({ ...p, title: t('keys.endOlder'), lines, action: { path: keyPath(key, 'end-older'), fields: { confirm: 'yes' }, submit: t('keys.endOlderSubmit') }, cancel: t('keys.back') });
}

export function revokeConfirmPage(p: Signed & { key: ApiKey }): string {
  const { text, key } = p;
  const { t } = text;
  const lines = [t('keys.revokeConfirm', { label: key.label, publicKey: key.public_key })];
  return confirmPage({ ...p, title: t('keys.revoke'), lines, action: { path: keyPath(key, 'revoke'), fields: { confirm: 'yes' }, submit: t('keys.revokeSubmit') }, cancel: t('keys.cancel') });
}
