import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  DISPUTE_REASONS,
  DISPUTE_STATUSES,
  type DisputeStatus,
  type DisputeStep,
  disputeBalance,
  disputePostings,
  EVIDENCE_TEXT_FIELDS,
  evidenceFields,
  hasEvidence,
  isClosed,
  moneyOf,
  nextStatus,
  sandboxVerdict,
} from '../../server/domain/disputes';

// The disputes' state machine and their ledger movements (server/domain/disputes.ts).

const STEPS: DisputeStep[] = ['evidence', 'submit', 'accept', 'deadline', 'won', 'lost'];

describe('dispute statuses', () => {
  it('a dispute: needs_response → under_review → won | lost', () => {
    expect(nextStatus('needs_response', 'evidence')).toBe('needs_response');
    expect(nextStatus('needs_response', 'submit')).toBe('under_review');
    expect(nextStatus('under_review', 'won')).toBe('won');
    expect(nextStatus('under_review', 'lost')).toBe('lost');
    expect(nextStatus('needs_response', 'accept')).toBe('lost');
  });

  it('the deadline: saved evidence is submitted, none loses', () => {
    expect(nextStatus('needs_response', 'deadline', false)).toBe('lost');
    expect(nextStatus('needs_response', 'deadline', true)).toBe('under_review');
    expect(nextStatus('warning_needs_response', 'deadline', false)).toBe('warning_closed');
    expect(nextStatus('warning_needs_response', 'deadline', true)).toBe('warning_under_review');
    expect(nextStatus('under_review', 'deadline', true)).toBeNull();
  });

  it('an inquiry ends closed whatever the bank decides', () => {
    expect(nextStatus('warning_needs_response', 'submit')).toBe('warning_under_review');
    expect(nextStatus('warning_under_review', 'won')).toBe('warning_closed');
    expect(nextStatus('warning_under_review', 'lost')).toBe('warning_closed');
    expect(nextStatus('warning_needs_response', 'accept')).toBe('warning_closed');
  });

  it('the merchant acts only while a response is awaited; a closed dispute never moves', () => {
    for (const status of DISPUTE_STATUSES) {
      const awaiting = status === 'needs_response' || status === 'warning_needs_response';
      for (const step of ['evidence', 'submit', 'accept'] as const) expect(nextStatus(status, step) !== null, `${status} ${step}`).toBe(awaiting);
      if (isClosed(status)) for (const step of STEPS) expect(nextStatus(status, step, true), `${status} ${step}`).toBeNull();
    }
    expect(nextStatus('needs_response', 'won')).toBeNull();
  });

  it('an inquiry never becomes a dispute that moves money, nor the other way round', () => {
    fc.assert(
      fc.property(fc.constantFrom(...DISPUTE_STATUSES), fc.array(fc.tuple(fc.constantFrom(...STEPS), fc.boolean()), { maxLength: 8 }), (start, steps) => {
        let status: DisputeStatus = start;
        for (const [step, evidence] of steps) {
          const next = nextStatus(status, step, evidence);
          if (next === null) continue;
          expect(next.startsWith('warning_')).toBe(status.startsWith('warning_'));
          status = next;
        }
      }),
    );
  });
});

describe('dispute money', () => {
  it('opening a dispute debits, winning it reverses, nothing else moves money', () => {
    expect(moneyOf(null, 'needs_response')).toBe('debit');
    expect(moneyOf(null, 'warning_needs_response')).toBeNull();
    expect(moneyOf('under_review', 'won')).toBe('reversal');
    expect(moneyOf('under_review', 'lost')).toBeNull();
    expect(moneyOf('needs_response', 'lost')).toBeNull();
    expect(moneyOf('warning_under_review', 'warning_closed')).toBeNull();
  });

  it('each movement adds up to zero, and the merchant moves by the balance transaction net', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 1n, max: 10n ** 12n }), fc.bigInt({ min: 0n, max: 10n ** 6n }), fc.constantFrom('debit' as const, 'reversal' as const), (amount, fee, money) => {
        const postings = disputePostings(money, 'sale', amount, fee);
        expect(postings.reduce((s, p) => s + p.amount, 0n)).toBe(0n);
        const merchant = postings.find((p) => 'system' in p.account && p.account.system === 'merchant')!.amount;
        const b = disputeBalance(money, amount, fee);
        expect(merchant).toBe(b.net);
        expect(b.net).toBe(b.amount - b.fee);
      }),
    );
    expect(disputeBalance('debit', 10_000n, 1_500n)).toEqual({ type: 'dispute', amount: -10_000n, fee: 1_500n, net: -11_500n });
    expect(disputeBalance('reversal', 10_000n, 1_500n)).toEqual({ type: 'dispute_reversal', amount: 10_000n, fee: 0n, net: 10_000n });
  });
});

describe('the sandbox bank and evidence', () => {
  it('winning_evidence in any text field wins; anything else loses', () => {
    expect(sandboxVerdict({ uncategorized_text: 'see winning_evidence here' })).toBe('won');
    expect(sandboxVerdict({ product_description: 'x', refund_policy: 'winning_evidence' })).toBe('won');
    expect(sandboxVerdict({ uncategorized_text: 'losing_evidence' })).toBe('lost');
    expect(sandboxVerdict({})).toBe('lost');
  });

  it('evidence is a non-blank text field or a file', () => {
    expect(hasEvidence({}, 0)).toBe(false);
    expect(hasEvidence({ uncategorized_text: '  ' }, 0)).toBe(false);
    expect(hasEvidence({ uncategorized_text: 'a' }, 0)).toBe(true);
    expect(hasEvidence({}, 1)).toBe(true);
  });
});

describe('evidence by reason', () => {
  it('asks each reason for its own fields first, "other evidence" last, and keeps every other field, each once', () => {
    for (const reason of DISPUTE_REASONS) {
      const { asked, other } = evidenceFields(reason);
      expect(asked.at(-1), reason).toBe('uncategorized_text');
      expect(asked.length, reason).toBeGreaterThan(1);
      expect([...asked, ...other].sort(), reason).toEqual([...EVIDENCE_TEXT_FIELDS].sort());
    }
    expect(evidenceFields('product_not_received').asked.slice(0, 3)).toEqual(['shipping_carrier', 'shipping_tracking_number', 'shipping_date']);
    expect(evidenceFields('duplicate').asked[0]).toBe('duplicate_charge_explanation');
  });
});
