import type { DisputedPayment } from '../store/disputes';
import type { DisputeRow } from '../store/schema';
import type { ActiveSession } from './accounts';
import type { DashboardText } from './i18n';
import { daysLeft, disputedPayment, disputeUrl, paymentParts } from './dispute-page';
import { renderPage } from './layout';

// Disputes: first those waiting for the merchant's answer, the nearest deadline first, then
// every dispute, newest first; each row opens the dispute's page (dispute-page.tsx), where
// it is answered.

interface Signed {
  text: DashboardText;
  session: ActiveSession;
}

interface TableProps {
  text: DashboardText;
  rows: DisputeRow[];
  /** Each disputed payment's order, customer and card, by sale id. */
  payments: Map<string, DisputedPayment>;
  label: string;
  id: string;
  now: Date;
}

/** A dispute's row: its deadline opens its page; the payment by its reference, order id, customer and card. */
function DisputeRowOf({ text, d, payment, label, now }: { text: DashboardText; d: DisputeRow; payment: DisputedPayment | undefined; label: string; now: Date }) {
  const { t } = text;
  const parts = paymentParts(text, payment);
  return (
    <tr data-testid={`dispute-${label}`}>
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
      <td data-testid="dispute-order">{parts.order}</td>
      <td data-testid="dispute-customer">{parts.customer}</td>
      <td data-testid="dispute-card">{parts.card}</td>
      <td>{text.dateTime(d.created_at)}</td>
    </tr>
  );
}

function DisputeTable({ text, rows, payments, label, id, now }: TableProps) {
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
            <th scope="col">{t('tx.orderId')}</th>
            <th scope="col">{t('pay.customer')}</th>
            <th scope="col">{t('pay.card')}</th>
            <th scope="col">{t('dsp.created')}</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((d) => (
            <DisputeRowOf key={d.id} text={text} d={d} payment={payments.get(d.sale_id)} label={label} now={now} />
          ))}
        </tbody>
      </table>
    </div>
  );
}

export function disputesPage(p: Signed & { awaiting: DisputeRow[]; all: DisputeRow[]; payments: Map<string, DisputedPayment>; page: number; pages: number; now: Date }): string {
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
        <DisputeTable text={text} rows={p.awaiting} payments={p.payments} label="awaiting" id="disputes-awaiting" now={p.now} />
      )}
      <h2 id="disputes-all">{t('dsp.all')}</h2>
      {p.all.length === 0 ? <p class="empty">{t('dsp.none')}</p> : <DisputeTable text={text} rows={p.all} payments={p.payments} label="all" id="disputes-all" now={p.now} />}
      <nav class="pager" aria-label={t('dsp.all')}>
        {p.page > 1 && <a href={`/dashboard/disputes/?page=${p.page - 1}`}>{t('tx.previous')}</a>}
        {p.page < p.pages && <a href={`/dashboard/disputes/?page=${p.page + 1}`}>{t('tx.next')}</a>}
      </nav>
    </>,
  );
}
