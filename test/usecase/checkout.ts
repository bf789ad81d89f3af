import { TEST_CARDS } from '../../server/domain/test-cards';
import { payTransaction, type PaymentOutcome } from '../../server/payments/pay';
import { findSaleOfTransaction } from '../../server/store/payments';
import type { SaleRow } from '../../server/store/schema';
import type { Transaction } from '../../server/store/transactions';
import { createTransaction } from '../../server/transactions/create';
import type { UseCaseWorld } from './world';

// A customer's checkout without the page: the use cases the API's POST /transaction/ and
// the payment page's pay post run.

/** A transaction of one line of `price`, in major units of `currency` as the API takes it. */
export async function newTransaction(world: UseCaseWorld, currency: string, price: number, o: { authorize?: boolean } = {}): Promise<Transaction> {
  const { deps, environmentId } = world;
  const body = { currency, gateway_selected: false, authorize: o.authorize ?? false, products: [{ amount: 1, product: { name: 'Item', price } }] };
  return (await createTransaction(deps.database.db, environmentId, body, deps.now())).row;
}

/** Pays `transaction` with `card` through the world's sandbox card gateway. */
export function payWith(world: UseCaseWorld, transaction: Transaction, card: string = TEST_CARDS.approved): Promise<PaymentOutcome> {
  const fields = { card_number: card, card_expiry: '12/34', card_cvc: '123', card_name: 'A' };
  return payTransaction(world.deps, { transaction, gateway: world.card, fields });
}

/** A new transaction paid with the approving test card: the sale it made. */
export async function paidSale(world: UseCaseWorld, currency: string, price: number, o: { authorize?: boolean } = {}): Promise<SaleRow> {
  const transaction = await newTransaction(world, currency, price, o);
  const paid = await payWith(world, transaction);
  if (paid.kind !== 'paid') throw new Error(`pay: ${paid.kind}`);
  return (await findSaleOfTransaction(world.deps.database.db, transaction.id))!;
}
