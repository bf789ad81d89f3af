// The states of a payout paid by SEPA file, as the money moves (docs/balance.md#payout-files):
//
//   pending ──send──▶ in_transit ──book / mark_paid──▶ paid ──return──▶ returned
//      ▲                  │ │
//      └───cancel_file────┘ └──reject (pain.002)──▶ failed
//
// One function decides every change, so the API, the dashboard, statement imports and
// status reports cannot disagree. Each change is one status change and one event, named
// after the state entered (`merchant_payout.in_transit`, `transfer.returned`, …). An action
// that finds the payout already where it would lead, or past it on the same path, is
// `unchanged`: a statement or status report imported twice, or two lines naming one
// transfer, change nothing the second time. `moneyBack` says the ledger movement of the
// payout is to be reversed: only on entering `failed` (the bank refused it before paying)
// or `returned` (the creditor's bank sent it back), and each is entered once.

export const PAYOUT_STATES = ['pending', 'in_transit', 'paid', 'returned', 'failed'] as const;
export type PayoutState = (typeof PAYOUT_STATES)[number];

export type PayoutAction = 'send' | 'book' | 'mark_paid' | 'return' | 'reject' | 'cancel_file';

/** The two kinds of payout: a merchant's balance to its bank, a wallet's money to a client IBAN. */
export type PayoutKind = 'merchant_payout' | 'transfer';

interface Rule {
  from: readonly PayoutState[];
  to: PayoutState;
  /** States from which the action is a repeat of one already applied. */
  done: readonly PayoutState[];
  moneyBack: boolean;
}

const RULES: Record<PayoutAction, Rule> = {
  // Written into a file that was downloaded: the bank may pay it from now on.
  send: { from: ['pending'], to: 'in_transit', done: ['in_transit', 'paid', 'returned'], moneyBack: false },
  // A statement shows the debit; or an owner says so, with a reason (audited by the wiring).
  book: { from: ['in_transit'], to: 'paid', done: ['paid', 'returned'], moneyBack: false },
  mark_paid: { from: ['in_transit'], to: 'paid', done: ['paid'], moneyBack: false },
  // A later statement shows the transfer came back (AC01, AC04, MD07…).
  return: { from: ['paid'], to: 'returned', done: ['returned'], moneyBack: true },
  // A pain.002 status report: the bank refused it before executing it.
  reject: { from: ['in_transit'], to: 'failed', done: ['failed'], moneyBack: true },
  // Its file was cancelled before the bank booked it: it goes in a later file.
  cancel_file: { from: ['in_transit'], to: 'pending', done: ['pending'], moneyBack: false },
};

const WORDS: Record<PayoutAction, string> = {
  send: 'sent',
  book: 'booked',
  mark_paid: 'marked paid',
  return: 'returned',
  reject: 'rejected',
  cancel_file: 'put back to pending by cancelling its file',
};

export type Transition =
  | { kind: 'changed'; from: PayoutState; to: PayoutState; event: string; moneyBack: boolean }
  | { kind: 'unchanged'; state: PayoutState }
  | { kind: 'refused'; state: PayoutState; reason: string };

/** What `action` does to a payout of `kind` in `state`. */
export function transition(kind: PayoutKind, state: PayoutState, action: PayoutAction): Transition {
  const rule = RULES[action];
  if (rule.from.includes(state)) return { kind: 'changed', from: state, to: rule.to, event: `${kind}.${rule.to}`, moneyBack: rule.moneyBack };
  if (rule.done.includes(state)) return { kind: 'unchanged', state };
  return { kind: 'refused', state, reason: `a payout that is ${state} cannot be ${WORDS[action]}` };
}

/** The states of a payout file: written, then downloaded (its payouts in transit), then booked or cancelled. */
export type PayoutFileState = 'written' | 'downloaded' | 'booked' | 'cancelled';

/**
 * Cancelling a file: allowed until a statement shows the bank booked any of it. Its payouts
 * in transit go back to pending (one transition each); the others are left as they are.
 */
export function cancelFile(
  file: PayoutFileState,
  kind: PayoutKind,
  payouts: readonly { id: string; state: PayoutState }[],
): { ok: true; transitions: { id: string; transition: Transition }[] } | { ok: false; reason: string } {
  if (file === 'booked') return { ok: false, reason: 'the bank has booked this file: it can no longer be cancelled' };
  if (file === 'cancelled') return { ok: true, transitions: [] };
  const booked = payouts.find((p) => p.state === 'paid' || p.state === 'returned');
  if (booked) return { ok: false, reason: `payout ${booked.id} of this file is ${booked.state}: the file can no longer be cancelled` };
  const inTransit = payouts.filter((p) => p.state === 'in_transit');
  return { ok: true, transitions: inTransit.map((p) => ({ id: p.id, transition: transition(kind, p.state, 'cancel_file') })) };
}
