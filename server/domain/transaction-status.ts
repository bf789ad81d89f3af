// DESIGN.md: N → D (paid), N → C (cancelled), N → E (past expired_date). Nothing else.
export type TransactionStatus = 'N' | 'C' | 'D' | 'E';

/** The status a reader sees: a pending transaction past its expiry is expired, stored or not. */
export function effectiveStatus(stored: TransactionStatus, expiredAt: string, now: Date): TransactionStatus {
  if (stored === 'N' && Date.parse(expiredAt) <= now.getTime()) return 'E';
  return stored;
}
