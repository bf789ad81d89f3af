import type { DisputeRow } from '../store/schema';
import type { ActiveSession } from './accounts';
import type { DashboardText } from './i18n';
import { daysLeft, disputedPayment, disputeUrl } from './dispute-page';
import { renderPage } from './layout';

// Disputes: first those waiting for the merchant's answer, the nearest deadline first, then
// every dispute, newest first; each row opens the dispute's page (dispute-page.tsx), where
// it is answered.

interface Signed {
  text: DashboardText;
  session: ActiveSession;
}

function DisputeTable({ text, rows, label, id, now }: { text: DashboardText; rows: DisputeRow[]; label: string; id: string; now: Date }) {
  const { t } = text;
  return (
    <div class="scroll" tabindex={0} role="region" aria-labelledby={id}>
      <table>
        <thead>
          <tr>
            <th scope="col">{t('dsp.dueBy')}</th>
            <th scope="col">{t('dsp.status')}</th>
            <th scope="col">{t('dsp.reason')}</th>
            <th scope="col">{t('dsp.amount')}</th>
            <th scope="col">{t('dsp.sale')}</th>
            <th scope="col">{t('dsp.created')}</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((d) => (
            <tr key={d.id} data-testid={`dispute-${label}`}>
              <td>
                <a href={disputeUrl(d.id)} aria-label={text.t('dsp.open', { reason: t(`dsp.reason.${d.reason}`), due: text.dateTime(d.evidence_due_by) })}>
                  {text.dateTime(d.evidence_due_by)}
                </a>
                {daysLeft(text, d, now) && <span class="hint">{` · ${daysLeft(text, d, now)}`}</span>}
              </td>
              <td data-status={d.status}>{t(`dsp.status.${d.status}`)}</td>
              <td>{t(`dsp.reason.${d.reason}`)}</td>
              <td>{text.money(d.amount, d.currency)}</td>
              <td>{disputedPayment(text, d.sale_id)}</td>
              <td>{text.dateTime(d.created_at)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

export function disputesPage(p: Signed & { awaiting: DisputeRow[]; all: DisputeRow[]; page: number; pages: number; now: Date }): string {
  const { text } = p;
  const { t } = text;
  return renderPage(
    { text, session: p.session, title: t('dsp.title'), active: 'disputes' },
    <>
      <p>{t('dsp.intro')}</p>
      <h2 id="disputes-awaiting">{t('dsp.awaiting')}</h2>
      {p.awaiting.length === 0 ? (
        <p class="empty">{t('dsp.noneAwaiting')}</p>
      ) : (
        <DisputeTable text={text} rows={p.awaiting} label="awaiting" id="disputes-awaiting" now={p.now} />
      )}
      <h2 id="disputes-all">{t('dsp.all')}</h2>
      {p.all.length === 0 ? <p class="empty">{t('dsp.none')}</p> : <DisputeTable text={text} rows={p.all} label="all" id="disputes-all" now={p.now} />}
      <nav class="pager" aria-label={t('dsp.all')}>
        {p.page > 1 && <a href={`/dashboard/disputes/?page=${p.page - 1}`}>{t('tx.previous')}</a>}
        {p.page < p.pages && <a href={`/dashboard/disputes/?page=${p.page + 1}`}>{t('tx.next')}</a>}
      </nav>
    </>,
  );
}
