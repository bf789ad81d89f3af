import type { PayoutState } from '../domain/sepa/states';
import type { BankImport } from '../payments/bank-files';
import type { PayoutFileItemRow, PayoutFileRow } from '../store/schema';
import type { DashboardText } from './i18n';
import { Csrf, renderPage } from './layout';
import { type ActionNotice, Notice, Pager } from './list-parts';
import type { Signed } from './sale-pages';

// Payout files (PAYOUT_PROVIDER=sepa-file; docs/balance.md#payout-files), owners only: the
// list with the statement upload, one file with its payouts, its download (a POST: the
// first one sends the payouts), its cancel (asked once more) and marking a payout paid by
// hand with a reason, and what importing a statement did, its unmatched lines included.

const BASE = '/dashboard/payout-files/';
export const payoutFileUrl = (id: string) => `${BASE}${id}/`;

export type FileItem = PayoutFileItemRow & { status: PayoutState };

const FileState = ({ text, file }: { text: DashboardText; file: PayoutFileRow }) =>
  file.state === 'written' ? <strong class="overdue">{text.t('pf.state.written')}</strong> : <>{text.t(`pf.state.${file.state}`)}</>;

function FileTable({ text, rows }: { text: DashboardText; rows: PayoutFileRow[] }) {
  const { t } = text;
  return (
    <div class="scroll" tabindex={0} role="region" aria-labelledby="pf-list">
      <table>
        <thead>
          <tr>
            <th scope="col">{t('pf.created')}</th>
            <th scope="col">{t('pf.state')}</th>
            <th scope="col">{t('pf.payouts')}</th>
            <th scope="col">{t('pf.amount')}</th>
            <th scope="col">{t('pf.execution')}</th>
            <th scope="col">{t('pf.downloads')}</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((f) => (
            <tr key={f.id} data-file={f.id}>
              <td>
                <a href={payoutFileUrl(f.id)}>{text.dateTime(f.created_at)}</a>
              </td>
              <td>
                <FileState text={text} file={f} />
              </td>
              <td>{f.payout_count}</td>
              <td>{text.money(f.control_sum, f.currency)}</td>
              <td>{f.execution_date}</td>
              <td>{f.download_count}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** The statement upload: a file field and its hint, posted as multipart. */
function StatementForm({ text, csrf }: { text: DashboardText; csrf: string }) {
  const { t } = text;
  return (
    <form method="post" action={`${BASE}statement/`} enctype="multipart/form-data" class="card">
      <Csrf token={csrf} />
      <div class="field">
        <label for="statement-file">{t('pf.statementFile')}</label>
        <input id="statement-file" name="file" type="file" accept=".xml,application/xml,text/xml" required aria-describedby="statement-hint" />
        <p class="hint" id="statement-hint">
          {t('pf.statementHint')}
        </p>
      </div>
      <button type="submit" class="primary">
        {t('pf.import')}
      </button>
    </form>
  );
}

export function payoutFilesPage(p: Signed & { rows: PayoutFileRow[]; page: number; pages: number; enabled: boolean; unmatched: BankImport['unmatched']; notice?: ActionNotice }): string {
  const { text } = p;
  const { t } = text;
  return renderPage(
    { text, session: p.session, title: t('pf.title'), active: 'payoutFiles' },
    <>
      <Notice notice={p.notice} />
      <p>{t(p.enabled ? 'pf.intro' : 'pf.off')}</p>
      <h2 id="pf-list">{t('pf.list')}</h2>
      {p.rows.length === 0 ? <p class="empty">{t('pf.none')}</p> : <FileTable text={text} rows={p.rows} />}
      <Pager text={text} page={p.page} pages={p.pages} href={(n) => `${BASE}?page=${n}`} />
      <h2>{t('pf.statementTitle')}</h2>
      <StatementForm text={text} csrf={p.session.csrf} />
      <h2 id="pf-unmatched">{t('pf.unmatchedRecent')}</h2>
      <Unmatched text={text} lines={p.unmatched} />
    </>,
  );
}

function Facts({ text, file }: { text: DashboardText; file: PayoutFileRow }) {
  const { t } = text;
  return (
    <dl class="facts">
      <dt>{t('pf.state')}</dt>
      <dd data-testid="file-state">
        <FileState text={text} file={file} />
      </dd>
      <dt>{t('pf.messageId')}</dt>
      <dd>
        <code>{file.message_id}</code>
      </dd>
      <dt>{t('pf.version')}</dt>
      <dd>{file.version}</dd>
      <dt>{t('pf.amount')}</dt>
      <dd>{text.money(file.control_sum, file.currency)}</dd>
      <dt>{t('pf.execution')}</dt>
      <dd>{file.execution_date}</dd>
      <dt>{t('pf.created')}</dt>
      <dd>{text.dateTime(file.created_at)}</dd>
      <dt>{t('pf.downloads')}</dt>
      <dd data-testid="file-downloads">{file.downloaded_at ? t('pf.downloadedAt', { n: file.download_count, at: text.dateTime(file.downloaded_at) }) : '0'}</dd>
    </dl>
  );
}

/** A payout in transit: marked paid by hand, with the reason the audit log keeps. */
function MarkPaidForm({ text, csrf, fileId, item }: { text: DashboardText; csrf: string; fileId: string; item: FileItem }) {
  const id = `reason-${item.payout_id}`;
  return (
    <form method="post" action={`${payoutFileUrl(fileId)}paid/`} class="inline">
      <Csrf token={csrf} />
      <input type="hidden" name="payout" value={item.payout_id} />
      <label for={id}>{text.t('pf.reason')}</label>
      <input id={id} name="reason" type="text" required maxLength={500} autocomplete="off" />
      <button type="submit">{text.t('pf.markPaid')}</button>
    </form>
  );
}

function ItemTable({ text, csrf, file, items }: { text: DashboardText; csrf: string; file: PayoutFileRow; items: FileItem[] }) {
  const { t } = text;
  return (
    <div class="scroll" tabindex={0} role="region" aria-labelledby="pf-items">
      <table>
        <thead>
          <tr>
            <th scope="col">{t('pf.object')}</th>
            <th scope="col">{t('pf.endToEnd')}</th>
            <th scope="col">{t('pf.amount')}</th>
            <th scope="col">{t('tx.status')}</th>
            <th scope="col">{t('pf.actions')}</th>
          </tr>
        </thead>
        <tbody>
          {items.map((i) => (
            <tr key={i.id} data-payout={i.payout_id}>
              <td>{t(`pf.object.${i.kind}`)}</td>
              <td>
                <code>{i.end_to_end_id}</code>
              </td>
              <td>{text.money(i.amount, file.currency)}</td>
              <td data-testid="payout-status">{t(`payout.status.${i.status}`)}</td>
              <td>{i.status === 'in_transit' && file.state !== 'cancelled' ? <MarkPaidForm text={text} csrf={csrf} fileId={file.id} item={i} /> : '—'}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** Download (again, with the warning) and cancel, as the file's state allows. */
function FileActions({ text, csrf, file }: { text: DashboardText; csrf: string; file: PayoutFileRow }) {
  const { t } = text;
  if (file.state === 'cancelled') return <p>{t('pf.cancelledHelp')}</p>;
  return (
    <>
      {file.download_count > 0 && (
        <p class="notice error" role="alert">
          {t('pf.twice', { n: file.download_count })}
        </p>
      )}
      <div class="row-actions">
        <form method="post" action={`${payoutFileUrl(file.id)}xml/`}>
          <Csrf token={csrf} />
          <button type="submit" class="primary">
            {t(file.download_count > 0 ? 'pf.downloadAgain' : 'pf.download')}
          </button>
        </form>
        {file.state !== 'booked' && (
          <form method="post" action={`${payoutFileUrl(file.id)}cancel/`}>
            <Csrf token={csrf} />
            <button type="submit">{t('pf.cancel')}</button>
          </form>
        )}
      </div>
    </>
  );
}

export function payoutFilePage(p: Signed & { file: PayoutFileRow; items: FileItem[]; notice?: ActionNotice; status?: number }): string {
  const { text, file } = p;
  const { t } = text;
  return renderPage(
    { text, session: p.session, title: t('pf.one', { amount: text.money(file.control_sum, file.currency) }), active: 'payoutFiles' },
    <>
      <p>
        <a href={BASE}>{t('pf.title')}</a>
      </p>
      <Notice notice={p.notice} />
      <Facts text={text} file={file} />
      <FileActions text={text} csrf={p.session.csrf} file={file} />
      <h2 id="pf-items">{t('pf.items')}</h2>
      <ItemTable text={text} csrf={p.session.csrf} file={file} items={p.items} />
    </>,
  );
}

export function cancelConfirmPage(p: Signed & { file: PayoutFileRow }): string {
  const { text, session, file } = p;
  const { t } = text;
  return renderPage(
    { text, session, title: t('pf.cancelTitle'), active: 'payoutFiles' },
    <>
      <p>{t('pf.cancelConfirm', { amount: text.money(file.control_sum, file.currency), n: file.payout_count })}</p>
      <div class="row-actions">
        <form method="post" action={`${payoutFileUrl(file.id)}cancel/`}>
          <Csrf token={session.csrf} />
          <input type="hidden" name="confirm" value="yes" />
          <button type="submit" class="primary">
            {t('pf.cancelSubmit')}
          </button>
        </form>
        <a href={payoutFileUrl(file.id)}>{t('pf.keep')}</a>
      </div>
    </>,
  );
}

function Unmatched({ text, lines }: { text: DashboardText; lines: BankImport['unmatched'] }) {
  const { t } = text;
  if (lines.length === 0) return <p class="empty">{t('pf.noUnmatched')}</p>;
  return (
    <div class="scroll" tabindex={0} role="region" aria-labelledby="pf-unmatched">
      <table data-testid="unmatched">
        <thead>
          <tr>
            <th scope="col">{t('pf.entry')}</th>
            <th scope="col">{t('pf.reference')}</th>
            <th scope="col">{t('pf.direction')}</th>
            <th scope="col">{t('pf.amount')}</th>
            <th scope="col">{t('pf.why')}</th>
          </tr>
        </thead>
        <tbody>
          {lines.map((l) => (
            <tr key={`${l.report}-${l.entry}`}>
              <td>{l.entry}</td>
              <td>{l.reference ?? '—'}</td>
              <td>{t(`pf.direction.${l.direction}`)}</td>
              <td>{text.money(l.amount, 'EUR')}</td>
              <td>{l.why}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** What importing a statement did; or why nothing was (`refused`). */
export function statementResultPage(p: Signed & { result?: BankImport; refused?: string }): string {
  const { text, result } = p;
  const { t } = text;
  return renderPage(
    { text, session: p.session, title: t('pf.statementTitle'), active: 'payoutFiles' },
    <>
      <p>
        <a href={BASE}>{t('pf.title')}</a>
      </p>
      {p.refused !== undefined && <Notice notice={{ text: t('pf.statementRefused', { reason: p.refused }), error: true }} />}
      {result && (
        <>
          <p role="status" data-testid="import-summary">
            {t('pf.imported', { kind: result.kind, changes: result.changes.length, duplicates: result.reports.filter((r) => r.duplicate).length })}
          </p>
          <ul>
            {result.changes.map((c) => (
              <li key={`${c.id}-${c.to}`} data-testid="import-change">
                {t('pf.change', { id: c.id, from: t(`payout.status.${c.from}`), to: t(`payout.status.${c.to}`) })}
              </li>
            ))}
            {result.refused.map((r) => (
              <li key={r.id} data-testid="import-refused">
                {t('pf.refusedLine', { id: r.id, reason: r.reason })}
              </li>
            ))}
          </ul>
          <h2 id="pf-unmatched">{t('pf.unmatched')}</h2>
          <Unmatched text={text} lines={result.unmatched} />
        </>
      )}
    </>,
  );
}
