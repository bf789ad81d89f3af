import { describe, expect, it } from 'vitest';
import { MAX_STATEMENT_WORDS, statementWords } from '../../server/domain/transaction-search';

// A text read as a bank statement line: each word a day, a card's last four or an amount
// (or two of these at once), in any order; anything else is no statement line.

describe('statementWords', () => {
  it('reads each word every way it can be, in any order', () => {
    const [amount, last4, day] = statementWords('12,50 4242 2026-11-20', 'UTC')!;
    expect(amount).toMatchObject({ last4: undefined, day: undefined });
    expect(amount!.amounts.map((a) => a.units)).toContain(1250);
    // Four digits are a card's last four and an amount at once.
    expect(last4!.last4).toBe('4242');
    expect(last4!.amounts.map((a) => a.units)).toContain(424200);
    expect(day).toEqual({ last4: undefined, amounts: [], day: { from: '2026-11-20T00:00:00.000Z', before: '2026-11-21T00:00:00.000Z' } });
  });

  it("reads a date as a whole day of the shop's time zone, clock changes included", () => {
    // Auckland is 13 hours ahead in its summer: its 20 November starts on the 19th in UTC.
    expect(statementWords('4242 2026-11-20', 'Pacific/Auckland')![1]!.day).toEqual({ from: '2026-11-19T11:00:00.000Z', before: '2026-11-20T11:00:00.000Z' });
    expect(statementWords('4242 2026-11-20', 'America/Los_Angeles')![1]!.day).toEqual({ from: '2026-11-20T08:00:00.000Z', before: '2026-11-21T08:00:00.000Z' });
    // The day Los Angeles goes back an hour is 25 hours long.
    expect(statementWords('4242 2026-11-01', 'America/Los_Angeles')![1]!.day).toEqual({ from: '2026-11-01T07:00:00.000Z', before: '2026-11-02T08:00:00.000Z' });
  });

  it('is no statement line when a word is none of them, or when there are too many words', () => {
    for (const text of ['', '   ', '4242 lamp', '2026-02-30', '9999-99-99', '12.5.0', '-5', '1e5', 'a@b.c']) expect(statementWords(text, 'UTC'), text).toBeUndefined();
    expect(statementWords(Array(MAX_STATEMENT_WORDS).fill('4242').join(' '), 'UTC')).toHaveLength(MAX_STATEMENT_WORDS);
    expect(statementWords(Array(MAX_STATEMENT_WORDS + 1).fill('4242').join(' '), 'UTC')).toBeUndefined();
  });
});
