import type { Db } from './db';
import type { AuthorizationRow, PaymentAttemptRow } from './schema';
import type { Transaction } from './transactions';

// What a transaction's page shows around it, all of the same environment: the cards stored
// by paying it, the wallets and stored cards its sources and destinations name, and its
// payment attempts (its status history between creation and the end).

export interface PartyWallet {
  id: string;
  wallet_id: string;
  name: string;
  currency: string;
  client_name: string;
  client_email: string | null;
}

export interface TransactionSurroundings {
  /** Cards stored by paying this transaction (`authorize: true`). */
  authorizations: AuthorizationRow[];
  /** The wallets its source and destination name, by id. */
  wallets: Map<string, PartyWallet>;
  /** The stored cards its source names, by id. */
  sourceCards: Map<string, AuthorizationRow>;
  attempts: Pick<PaymentAttemptRow, 'id' | 'outcome' | 'card_brand' | 'card_last4' | 'created_at' | 'language'>[];
}

export async function transactionSurroundings(db: Db, environmentId: string, tx: Transaction): Promise<TransactionSurroundings> {
  const walletIds = [...(tx.source ?? []).flatMap((s) => (s.wallet_id ? [s.wallet_id] : [])), ...(tx.destination ?? []).map((d) => d.wallet_id)];
  const cardIds = (tx.source ?? []).flatMap((s) => (s.authorization_id ? [s.authorization_id] : []));
  const [authorizations, wallets, sourceCards, attempts] = await Promise.all([
    db.selectFrom('authorizations').selectAll().where('environment_id', '=', environmentId).where('transaction_id', '=', tx.id).orderBy('id').execute(),
    walletIds.length
      ? db
          .selectFrom('wallets')
          .innerJoin('clients', 'clients.id', 'wallets.client_id')
          .select(['wallets.id', 'wallets.wallet_id', 'wallets.name', 'wallets.currency', 'clients.name as client_name', 'clients.email as client_email'])
          .where('wallets.environment_id', '=', environmentId)
          .where('wallets.id', 'in', walletIds)
          .execute()
      : [],
    cardIds.length ? db.selectFrom('authorizations').selectAll().where('environment_id', '=', environmentId).where('id', 'in', cardIds).execute() : [],
    db
      .selectFrom('payment_attempts')
      .select(['id', 'outcome', 'card_brand', 'card_last4', 'created_at', 'language'])
      .where('transaction_id', '=', tx.id)
      .orderBy('created_at')
      .orderBy('id')
      .limit(100)
      .execute(),
  ]);
  return {
    authorizations,
    wallets: new Map(wallets.map((w) => [w.id, w])),
    sourceCards: new Map(sourceCards.map((a) => [a.id, a])),
    attempts,
  };
}
