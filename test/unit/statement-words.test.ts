import { describe, expect, it } from 'vitest';
import { MAX_STATEMENT_WORDS, statementWords } from '../../server/domain/transaction-search';

// A text read as a bank statement line: each word a day, a card's last four or an amount
// (or two of these at once), in any order; anything else is no statement line.

describe('statementWords', () => {
  it('reads each word every way it can be, in any order', () => {
    const [amount, last4, day] = statementWords('12,50 4242 2026-11-20')!;
    expect(amount).toMatchObject({ last4: undefined, day: undefined });
    expect(amount!.amounts.map((a) => a.units)).toContain(1250);
    // Four digits are a card's last four and an amount at once.
    expect(last4!.last4).toBe('4242');
    expect(last4!.amounts.map((a) => a.units)).toContain(424200);
    expect(day).toEqual({ last4: undefined, amounts: [], day: '2026-11-20' });
  });

  it('is no statement line when a word is none of them, or when there are too many words', () => {
    for (const text of ['', '   ', '4242 lamp', '2026-02-30', '9999-99-99', '12.5.0', '-5', '1e5', 'a@b.c']) expect(statementWords(text), text).toBeUndefined();
    expect(statementWords(Array(MAX_STATEMENT_WORDS).fill('4242').join(' '))).toHaveLength(MAX_STATEMENT_WORDS);
    expect(statementWords(Array(MAX_STATEMENT_WORDS + 1).fill('4242').join(' '))).toBeUndefined();
  });
});
