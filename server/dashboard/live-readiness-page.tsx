import { type Readiness, type ReadinessItem, READINESS_ITEMS, WEBHOOK_RECENT_MS } from '../domain/live-readiness';
import type { DashboardText } from './i18n';
import { renderPage } from './layout';
import type { Signed } from './sale-pages';

// The live readiness checklist: each item with its state in words (never colour alone),
// what is known of it, and the page that fixes it.

export const READINESS_URL = '/dashboard/live-readiness/';

const FIX: Record<ReadinessItem, string> = {
  processor: '/dashboard/processors/',
  webhook: '/dashboard/processors/',
  branding: '/dashboard/settings/',
  support_email: '/dashboard/settings/',
};

const RECENT_HOURS = WEBHOOK_RECENT_MS / 3_600_000;

/** What is known of an item: the key's last four, when the last webhook came. */
function detail(text: DashboardText, r: Readiness, item: ReadinessItem): string {
  const { t } = text;
  if (item === 'processor') return r.keyLast4 ? t('ready.processor.key', { last4: r.keyLast4 }) : t('ready.processor.none');
  if (item === 'webhook') {
    if (r.webhooks === 'never') return t('ready.webhook.never');
    return t(r.webhooks === 'recent' ? 'ready.webhook.recent' : 'ready.webhook.stale', { at: text.dateTime(r.lastDelivery!), hours: RECENT_HOURS });
  }
  return t(r.ready[item] ? `ready.${item}.set` : `ready.${item}.missing`);
}

function Item({ text, readiness, item }: { text: DashboardText; readiness: Readiness; item: ReadinessItem }) {
  const { t } = text;
  const ok = readiness.ready[item];
  return (
    <li data-item={item} data-ready={String(ok)}>
      <h2 id={`ready-${item}`}>{t(`ready.item.${item}`)}</h2>
      <p>
        {ok ? t('ready.done') : <strong class="overdue">{t('ready.missing')}</strong>}
        {': '}
        {detail(text, readiness, item)}
      </p>
      {!ok && (
        <p>
          <a href={FIX[item]} aria-describedby={`ready-${item}`}>
            {t(`ready.fix.${item}`)}
          </a>
        </p>
      )}
    </li>
  );
}

export function liveReadinessPage(p: Signed & { readiness: Readiness }): string {
  const { text, readiness } = p;
  const { t } = text;
  const live = p.session.current.environment_mode === 'live';
  return renderPage(
    { text, session: p.session, title: t('ready.title'), active: 'overview' },
    <>
      <p>{t(live ? 'ready.intro' : 'ready.sandbox')}</p>
      <p data-testid="ready-summary" role="status">
        {readiness.missing.length === 0 ? t('ready.all') : t('ready.count', { missing: readiness.missing.length, total: READINESS_ITEMS.length })}
      </p>
      <ol class="checklist">
        {READINESS_ITEMS.map((item) => (
          <Item key={item} text={text} readiness={readiness} item={item} />
        ))}
      </ol>
      <p class="hint">{t('ready.recentHint', { hours: RECENT_HOURS })}</p>
    </>,
  );
}
