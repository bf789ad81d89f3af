import { Fragment } from 'preact';
import { AWAITING_RESPONSE, EVIDENCE_DATE_FIELDS, EVIDENCE_TEXT_FIELDS, evidenceFields, isClosed, type EvidenceField } from '../domain/disputes';
import { paymentReference } from '../domain/payment-reference';
import type { DisputedPayment, StoredDispute } from '../store/disputes';
import type { DisputeRow } from '../store/schema';
import { roleAtLeast } from '../store/users';
import { type Errors, type EvidenceValues, LINE_FIELDS } from './dispute-form';
import { DisputeFileForm, type FileError } from './dispute-file-form';
import type { DashboardKey, DashboardText } from './i18n';
import { Csrf, renderPage } from './layout';
import { type ActionNotice, Notice } from './list-parts';
import { cardText, type Signed } from './sale-pages';

// One dispute: what it is, its deadline, the evidence saved so far (files by name, type,
// size and digest: their bytes are never served), and for admins while it awaits a
// response the evidence form, the file form and the two answers that cannot be undone,
// each confirmed on a page of its own naming the environment.

export const disputeUrl = (id: string) => `/dashboard/disputes/${id}/`;

/** A deadline this close is shown as near. */
const NEAR_MS = 2 * 86_400_000;
/** The API's limit on each free-text field (commands/dispute-answers.ts), said in the hints. */
const TEXT_MAX = 20_000;

export type Answer = 'submit' | 'accept';

const fieldKey = (f: EvidenceField) => `dsp.field.${f}` as DashboardKey;

const DAY_MS = 86_400_000;

/** "3 days left" while the dispute awaits an answer before its deadline (a part of a day counts as a day); null otherwise. */
export function daysLeft(text: DashboardText, d: Pick<DisputeRow, 'status' | 'evidence_due_by'>, now: Date): string | null {
  const due = new Date(d.evidence_due_by).getTime() - now.getTime();
  if (!AWAITING_RESPONSE.includes(d.status) || due <= 0) return null;
  const days = Math.ceil(due / DAY_MS);
  return days === 1 ? text.t('dsp.dayLeft') : text.t('dsp.daysLeft', { count: days });
}

/** The payment a dispute is about, as its customer and the payments list name it. */
export const disputedPayment = (text: DashboardText, saleId: string) => text.t('dsp.payment', { reference: paymentReference(saleId) });

/** The disputed payment's order id, customer email and card in words, "—" for what it has none of (a sale made without a transaction). */
export function paymentParts(text: DashboardText, p: DisputedPayment | undefined): { order: string; customer: string; card: string } {
  const none = text.t('pay.noCustomer');
  return { order: p?.order_id ?? none, customer: p?.customer_email ?? none, card: p?.card_last4 ? cardText(text, p) : none };
}

/** The deadline with the days left, and in words whether it is near or past (not by colour alone). */
function Deadline({ text, d, now }: { text: DashboardText; d: StoredDispute['row']; now: Date }) {
  const { t } = text;
  const due = new Date(d.evidence_due_by).getTime() - now.getTime();
  const awaiting = AWAITING_RESPONSE.includes(d.status);
  const state = !awaiting ? null : due <= 0 ? 'overdue' : due <= NEAR_MS ? 'near' : null;
  const left = daysLeft(text, d, now);
  return (
    <dd class={state ? `due ${state}` : undefined} data-testid="due">
      {text.dateTime(d.evidence_due_by)}
      {left && ` · ${left}`}
      {state && <strong>{` ${t(state === 'overdue' ? 'dsp.overdue' : 'dsp.near')}`}</strong>}
    </dd>
  );
}

interface FactsProps {
  text: DashboardText;
  dispute: StoredDispute;
  payment: DisputedPayment | undefined;
  transactionUrl: string | null;
  now: Date;
}

function Facts({ text, dispute, payment, transactionUrl, now }: FactsProps) {
  const { t } = text;
  const d = dispute.row;
  const parts = paymentParts(text, payment);
  return (
    <dl class="facts">
      <dt>{t('dsp.status')}</dt>
      <dd data-testid="status" data-status={d.status}>
        {t(`dsp.status.${d.status}`)}
      </dd>
      <dt>{t('dsp.reason')}</dt>
      <dd>{t(`dsp.reason.${d.reason}`)}</dd>
      <dt>{t('dsp.amount')}</dt>
      <dd>{text.money(d.amount, d.currency)}</dd>
      <dt>{t('dsp.fee')}</dt>
      <dd>{text.money(d.fee, d.currency)}</dd>
      <dt>{t('dsp.sale')}</dt>
      <dd>{transactionUrl ? <a href={transactionUrl}>{disputedPayment(text, d.sale_id)}</a> : disputedPayment(text, d.sale_id)}</dd>
      <dt>{t('tx.orderId')}</dt>
      <dd data-testid="dispute-order">{parts.order}</dd>
      <dt>{t('pay.customer')}</dt>
      <dd data-testid="dispute-customer">{parts.customer}</dd>
      <dt>{t('pay.card')}</dt>
      <dd data-testid="dispute-card">{parts.card}</dd>
      <dt>{t('dsp.created')}</dt>
      <dd>{text.dateTime(d.created_at)}</dd>
      <dt>{t('dsp.dueBy')}</dt>
      <Deadline text={text} d={d} now={now} />
      <dt>{t('dsp.submitted')}</dt>
      <dd>{d.submitted_at ? text.dateTime(d.submitted_at) : '—'}</dd>
      {isClosed(d.status) && (
        <>
          <dt>{t('dsp.outcome')}</dt>
          <dd data-testid="outcome">{t('dsp.outcomeOn', { status: t(`dsp.status.${d.status}`), when: d.closed_at ? text.dateTime(d.closed_at) : '—' })}</dd>
        </>
      )}
    </dl>
  );
}

function SavedEvidence({ text, dispute }: { text: DashboardText; dispute: StoredDispute }) {
  const { t } = text;
  const given = EVIDENCE_TEXT_FIELDS.filter((f) => (dispute.evidence[f] ?? '').trim() !== '');
  return (
    <>
      <h2 id="dispute-evidence">{t('dsp.evidence')}</h2>
      {given.length === 0 ? (
        <p class="empty">{t('dsp.noEvidence')}</p>
      ) : (
        <dl class="facts evidence">
          {given.map((f) => (
            <Fragment key={f}>
              <dt>{t(fieldKey(f))}</dt>
              <dd data-testid={`evidence-${f}`}>{dispute.evidence[f]}</dd>
            </Fragment>
          ))}
        </dl>
      )}
      <h3 id="dispute-files">{t('dsp.files')}</h3>
      {dispute.files.length === 0 ? (
        <p class="empty">{t('dsp.noFiles')}</p>
      ) : (
        <div class="scroll" tabindex={0} role="region" aria-labelledby="dispute-files">
          <table>
            <thead>
              <tr>
                <th scope="col">{t('dsp.fileName')}</th>
                <th scope="col">{t('dsp.fileType')}</th>
                <th scope="col">{t('dsp.fileSize')}</th>
                <th scope="col">SHA-256</th>
                <th scope="col">{t('dsp.fileAdded')}</th>
              </tr>
            </thead>
            <tbody>
              {dispute.files.map((f) => (
                <tr key={f.id} data-testid="dispute-file">
                  <td class="url">{f.file_name}</td>
                  <td>{f.content_type}</td>
                  <td>{t('dsp.bytes', { size: f.size })}</td>
                  <td class="url">{f.sha256}</td>
                  <td>{text.dateTime(f.created_at)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </>
  );
}

function EvidenceField({ text, name, value, errors }: { text: DashboardText; name: EvidenceField; value: string; errors: Errors }) {
  const { t } = text;
  const error = errors.find((e) => e.path.split('.')[0] === name);
  const id = `ev-${name}`;
  const date = EVIDENCE_DATE_FIELDS.includes(name);
  const hint = date ? t('dsp.hintDate') : t('dsp.hintText', { max: TEXT_MAX.toLocaleString(text.lang) });
  const described = `${id}-hint${error ? ` ${id}-error` : ''}`;
  const common = { id, name, 'aria-invalid': error ? ('true' as const) : undefined, 'aria-describedby': described };
  return (
    <div class="field">
      <label for={id}>{t(fieldKey(name))}</label>
      {date ? (
        <input {...common} type="date" value={value} />
      ) : LINE_FIELDS.includes(name) ? (
        <input {...common} type="text" value={value} autocomplete="off" />
      ) : (
        <textarea {...common} rows={3}>
          {value}
        </textarea>
      )}
      <p class="hint" id={`${id}-hint`}>
        {hint}
      </p>
      {error && (
        <p class="field-error" id={`${id}-error`} data-testid={`error-${name}`}>
          {error.message}
        </p>
      )}
    </div>
  );
}

function Answering(p: Signed & { dispute: StoredDispute; values: EvidenceValues; errors: Errors; fileError?: FileError }) {
  const { t } = p.text;
  const id = p.dispute.row.id;
  const { asked, other } = evidenceFields(p.dispute.row.reason);
  return (
    <>
      <h2 id="dispute-answer">{t('dsp.answer')}</h2>
      <p>{t('dsp.answerIntro')}</p>
      <form method="post" action={`${disputeUrl(id)}evidence/`} class="card" aria-labelledby="dispute-answer">
        <Csrf token={p.session.csrf} />
        {p.errors.length > 0 && (
          <p class="notice error" role="alert">
            {t('dsp.invalid')}
          </p>
        )}
        <p>{t(`dsp.guide.${p.dispute.row.reason}`)}</p>
        {asked.map((f) => (
          <EvidenceField key={f} text={p.text} name={f} value={p.values[f]} errors={p.errors} />
        ))}
        {/* Open when it holds something: saved text, or a field refused. */}
        <details open={other.some((f) => p.values[f] !== '' || p.errors.some((e) => e.path.split('.')[0] === f))}>
          <summary>{t('dsp.moreEvidence')}</summary>
          {other.map((f) => (
            <EvidenceField key={f} text={p.text} name={f} value={p.values[f]} errors={p.errors} />
          ))}
        </details>
        <button type="submit">{t('dsp.save')}</button>
      </form>
      <DisputeFileForm text={p.text} csrf={p.session.csrf} action={`${disputeUrl(id)}files/`} error={p.fileError} />
      <div class="row-actions">
        {(['submit', 'accept'] as const).map((a) => (
          <form key={a} method="post" action={`${disputeUrl(id)}${a}/`}>
            <Csrf token={p.session.csrf} />
            {/* Submitting is what the merchant came for; accepting (losing) is the quiet one. */}
            <button type="submit" class={a === 'submit' ? 'primary' : 'quiet'}>
              {t(`dsp.action.${a}`)}
            </button>
          </form>
        ))}
      </div>
    </>
  );
}

export function disputePage(
  p: Signed & {
    dispute: StoredDispute;
    payment: DisputedPayment | undefined;
    transactionUrl: string | null;
    now: Date;
    values: EvidenceValues;
    errors: Errors;
    fileError?: FileError;
    notice?: ActionNotice;
  },
): string {
  const { text, dispute } = p;
  const { t } = text;
  const canAnswer = roleAtLeast(p.session.current.role, 'admin') && AWAITING_RESPONSE.includes(dispute.row.status);
  return renderPage(
    { text, session: p.session, title: t('dsp.one', { id: dispute.row.id }), active: 'disputes' },
    <>
      <Notice notice={p.notice} />
      <p>
        <a href="/dashboard/disputes/">{t('dsp.back')}</a>
      </p>
      <Facts text={text} dispute={dispute} payment={p.payment} transactionUrl={p.transactionUrl} now={p.now} />
      <SavedEvidence text={text} dispute={dispute} />
      {canAnswer && <Answering {...p} />}
    </>,
  );
}

/** The second step of submitting or accepting: neither can be undone, and it happens in this environment. */
export function confirmAnswerPage(p: Signed & { dispute: StoredDispute; action: Answer }): string {
  const { text, dispute, action } = p;
  const { t } = text;
  const d = dispute.row;
  return renderPage(
    { text, session: p.session, title: t(`dsp.confirm.${action}.title`), active: 'disputes' },
    <form method="post" action={`${disputeUrl(d.id)}${action}/`} class="card">
      <p>{t(`dsp.confirm.${action}.body`, { amount: text.money(d.amount, d.currency), reason: t(`dsp.reason.${d.reason}`) })}</p>
      <p>
        <strong>{t('sale.confirm.environment', { name: p.session.current.environment_name, mode: t(`env.mode.${p.session.current.environment_mode}`) })}</strong>
      </p>
      <Csrf token={p.session.csrf} />
      <input type="hidden" name="confirm" value="yes" />
      <button type="submit" class="primary">
        {t(`dsp.confirm.${action}.yes`)}
      </button>
      <a href={disputeUrl(d.id)}>{t('sale.confirm.cancel')}</a>
    </form>,
  );
}
