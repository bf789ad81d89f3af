import type { Wallet } from '../store/ledger';
import type { LedgerEntryRow, TransferRow } from '../store/schema';
import type { PayoutState } from '../domain/sepa/states';
import type { DashboardText } from './i18n';
import { renderPage } from './layout';
import { Pager } from './list-parts';
import type { Signed } from './sale-pages';

// Wallets: a page of them with their balances, and one wallet with its entries and the
// transfers it sent. Read-only.

export function walletsPage(p: Signed & { rows: (Wallet & { enabled_by_compliance: boolean })[]; page: number; pages: number }): string {
  const { text } = p;
  const { t } = text;
  return renderPage(
    { text, session: p.session, title: t('wallet.title'), active: 'wallets' },
    <>
      {p.rows.length === 0 ? (
        <p class="empty">{t('wallet.none')}</p>
      ) : (
        <div class="scroll" tabindex={0} role="region" aria-label={t('wallet.title')}>
          <table>
            <thead>
              <tr>
                <th scope="col">{t('wallet.name')}</th>
                <th scope="col">{t('wallet.client')}</th>
                <th scope="col">{t('wallet.balance')}</th>
                <th scope="col">{t('tx.status')}</th>
              </tr>
            </thead>
            <tbody>
              {p.rows.map((w) => (
                <tr key={w.id} data-wallet={w.id}>
                  <td>
                    <a href={`/dashboard/wallets/${w.id}/`}>{`${w.name} · ${w.wallet_id}`}</a>
                  </td>
                  <td>
                    <a href={`/dashboard/clients/${w.client_id}/`}>{t('wallet.clientLink')}</a>
                  </td>
                  <td>{text.money(w.balance, w.currency)}</td>
                  <td>{t(w.enabled && w.enabled_by_compliance ? 'wallet.usable' : 'wallet.blocked')}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <Pager text={text} page={p.page} pages={p.pages} href={(n) => `/dashboard/wallets/?page=${n}`} />
    </>,
  );
}

function Entries({ text, wallet, entries }: { text: DashboardText; wallet: Wallet; entries: LedgerEntryRow[] }) {
  const { t } = text;
  if (entries.length === 0) return <p class="empty">{t('wallet.noEntries')}</p>;
  return (
    <div class="scroll" tabindex={0} role="region" aria-label={t('wallet.entries')}>
      <table>
        <thead>
          <tr>
            <th scope="col">{t('wallet.when')}</th>
            <th scope="col">{t('wallet.concept')}</th>
            <th scope="col">{t('wallet.amount')}</th>
            <th scope="col">{t('wallet.balanceAfter')}</th>
          </tr>
        </thead>
        <tbody>
          {entries.map((e) => (
            <tr key={e.id}>
              <td>{text.dateTime(e.created_at)}</td>
              <td>{e.concept ?? '—'}</td>
              <td>{text.money(e.amount, wallet.currency)}</td>
              <td>{e.balance === null ? '—' : text.money(e.balance, wallet.currency)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function Transfers({ text, transfers }: { text: DashboardText; transfers: TransferRow[] }) {
  const { t } = text;
  if (transfers.length === 0) return <p class="empty">{t('wallet.noTransfers')}</p>;
  return (
    <div class="scroll" tabindex={0} role="region" aria-label={t('wallet.transfers')}>
      <table>
        <thead>
          <tr>
            <th scope="col">{t('wallet.when')}</th>
            <th scope="col">{t('wallet.to')}</th>
            <th scope="col">{t('wallet.amount')}</th>
            <th scope="col">{t('tx.status')}</th>
          </tr>
        </thead>
        <tbody>
          {transfers.map((x) => (
            <tr key={x.id}>
              <td>{text.dateTime(x.created_at)}</td>
              <td>{x.destination_wallet ? <a href={`/dashboard/wallets/${x.destination_wallet}/`}>{t('wallet.toWallet')}</a> : t('wallet.toIban')}</td>
              <td>{text.money(x.amount, x.currency)}</td>
              <td data-status={x.status}>{t(`transfer.status.${x.status as PayoutState}`)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

export function walletPage(p: Signed & { wallet: Wallet; entries: LedgerEntryRow[]; transfers: TransferRow[]; page: number; pages: number }): string {
  const { text, wallet } = p;
  const { t } = text;
  return renderPage(
    { text, session: p.session, title: `${wallet.name} · ${wallet.wallet_id}`, active: 'wallets' },
    <>
      <dl class="facts">
        <dt>{t('wallet.balance')}</dt>
        <dd>{text.money(wallet.balance, wallet.currency)}</dd>
        <dt>{t('wallet.client')}</dt>
        <dd>
          <a href={`/dashboard/clients/${wallet.client_id}/`}>{t('wallet.clientLink')}</a>
        </dd>
      </dl>
      <h2>{t('wallet.entries')}</h2>
      <Entries text={text} wallet={wallet} entries={p.entries} />
      <Pager text={text} page={p.page} pages={p.pages} href={(n) => `/dashboard/wallets/${wallet.id}/?page=${n}`} />
      <h2>{t('wallet.transfers')}</h2>
      <Transfers text={text} transfers={p.transfers} />
    </>,
  );
}
