import { describe, expect, it } from 'vitest';
import { cancelFile, PAYOUT_STATES, type PayoutAction, type PayoutState, transition } from '../../server/domain/sepa/states';

// The payout state machine of SEPA files (server/domain/sepa/states.ts), checked whole:
// every action from every state, against the table docs/balance.md#payout-files states.

const ACTIONS: PayoutAction[] = ['send', 'book', 'mark_paid', 'return', 'reject', 'cancel_file'];

/** The table as the docs state it: action → state → what happens ('→ x', '=' unchanged, '✗' refused). */
const TABLE: Record<PayoutAction, Record<PayoutState, string>> = {
  send: { pending: '→ in_transit', in_transit: '=', paid: '=', returned: '=', failed: '✗' },
  book: { pending: '✗', in_transit: '→ paid', paid: '=', returned: '=', failed: '✗' },
  mark_paid: { pending: '✗', in_transit: '→ paid', paid: '=', returned: '✗', failed: '✗' },
  return: { pending: '✗', in_transit: '✗', paid: '→ returned', returned: '=', failed: '✗' },
  reject: { pending: '✗', in_transit: '→ failed', paid: '✗', returned: '✗', failed: '=' },
  cancel_file: { pending: '=', in_transit: '→ pending', paid: '✗', returned: '✗', failed: '✗' },
};

describe('payout states', () => {
  it('every action from every state does what the table says, with one event named after the state entered', () => {
    for (const action of ACTIONS) {
      for (const state of PAYOUT_STATES) {
        const t = transition('merchant_payout', state, action);
        const shown = t.kind === 'changed' ? `→ ${t.to}` : t.kind === 'unchanged' ? '=' : '✗';
        expect(`${action} from ${state}: ${shown}`).toBe(`${action} from ${state}: ${TABLE[action][state]}`);
        if (t.kind === 'changed') expect(t.event).toBe(`merchant_payout.${t.to}`);
        if (t.kind === 'refused') expect(t.reason).toMatch(new RegExp(`^a payout that is ${state} cannot be `));
      }
    }
  });

  it('money goes back only on entering failed or returned, and a second time changes nothing', () => {
    const back = (state: PayoutState, action: PayoutAction) => {
      const t = transition('transfer', state, action);
      return t.kind === 'changed' && t.moneyBack;
    };
    expect(back('paid', 'return')).toBe(true);
    expect(back('in_transit', 'reject')).toBe(true);
    expect(back('returned', 'return')).toBe(false);
    expect(back('failed', 'reject')).toBe(false);
    expect(ACTIONS.filter((a) => PAYOUT_STATES.some((s) => back(s, a)))).toEqual(['return', 'reject']);
    expect(transition('transfer', 'paid', 'return')).toMatchObject({ event: 'transfer.returned' });
  });

  it('a file not yet booked can be cancelled: its payouts in transit go back to pending, the others stay', () => {
    const payouts = [
      { id: 'a', state: 'in_transit' as const },
      { id: 'b', state: 'failed' as const },
    ];
    const r = cancelFile('downloaded', 'merchant_payout', payouts);
    expect(r.ok && r.transitions.map((t) => [t.id, t.transition.kind === 'changed' ? t.transition.event : t.transition.kind])).toEqual([
      ['a', 'merchant_payout.pending'],
    ]);
    // A file written but never downloaded: its payouts never left pending.
    expect(cancelFile('written', 'merchant_payout', [{ id: 'c', state: 'pending' }])).toEqual({ ok: true, transitions: [] });
    expect(cancelFile('cancelled', 'merchant_payout', payouts)).toEqual({ ok: true, transitions: [] });
  });

  it('a booked file, or one with a payout already paid, cannot be cancelled', () => {
    expect(cancelFile('booked', 'transfer', [])).toEqual({ ok: false, reason: 'the bank has booked this file: it can no longer be cancelled' });
    expect(cancelFile('downloaded', 'transfer', [{ id: 'a', state: 'in_transit' }, { id: 'b', state: 'paid' }])).toEqual({
      ok: false,
      reason: 'payout b of this file is paid: the file can no longer be cancelled',
    });
  });
});
