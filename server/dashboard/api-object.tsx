import { presentSale } from '../present/sale';
import { presentTransaction } from '../present/transaction';
import type { StoredSale } from '../store/sales';
import type { StoredTransaction } from '../store/transactions';
import type { DashboardText } from './i18n';

// A payment's "API object", for developers: the JSON that `GET /v1/transaction/{id}/` and
// `GET /v1/sale/{id}/` answer, made by the API's own presenters (present/), never a second
// serializer, with the `livemode` the API's route then stamps on them (http/livemode.ts;
// these two objects carry it at their top only, appended after the presenter's fields as
// the stamp appends it). Pretty-printed text, so Preact escapes it; in a closed <details>,
// opened without script.

export interface ApiObjects {
  transaction: string;
  sales: { id: string; json: string }[];
}

export function apiObjectsOf(tx: StoredTransaction, sales: StoredSale[], o: { now: Date; baseUrl: string; live: boolean }): ApiObjects {
  const json = (presented: object) => JSON.stringify({ ...presented, livemode: o.live }, null, 2);
  return {
    transaction: json(presentTransaction(tx, o.now, o.baseUrl)),
    sales: sales.map((s) => ({ id: s.row.id, json: json(presentSale(s, o.baseUrl)) })),
  };
}

function Json({ path, json, testId }: { path: string; json: string; testId: string }) {
  return (
    <>
      <h3>
        <code>{path}</code>
      </h3>
      <pre tabindex={0} data-testid={testId}>
        <code>{json}</code>
      </pre>
    </>
  );
}

export function ApiObject({ text, txId, api }: { text: DashboardText; txId: string; api: ApiObjects }) {
  const { t } = text;
  return (
    <details class="api-object" data-testid="api-object">
      <summary>{t('tx.apiObject')}</summary>
      <p class="hint">{t('tx.apiObjectHint')}</p>
      <Json path={`GET /v1/transaction/${txId}/`} json={api.transaction} testId="api-transaction" />
      {api.sales.map((s) => (
        <Json key={s.id} path={`GET /v1/sale/${s.id}/`} json={s.json} testId="api-sale" />
      ))}
    </details>
  );
}
