// The background jobs' names: what logs, metrics and JOB_PERIODS call them (server/config.ts
// reads this, so it imports nothing).

export const JOB_NAMES = {
  expiry: 'expiry',
  reconciliation: 'reconciliation',
  holdExpiry: 'hold-expiry',
  authorizationExpiry: 'authorization-expiry',
  sourcePayments: 'source-payments',
  compliance: 'compliance-review',
  payouts: 'payouts',
  subscriptions: 'subscription-charges',
  delivery: 'webhook-delivery',
  trialReminders: 'trial-reminders',
  mail: 'mail-delivery',
  rateLimits: 'rate-limit-sweep',
  retention: 'retention',
  balance: 'balance',
  sandboxDisputes: 'sandbox-disputes',
  disputeDeadlines: 'dispute-deadlines',
  sandboxDisputeReviews: 'sandbox-dispute-reviews',
  merchantPayouts: 'merchant-payouts',
  payoutFiles: 'payout-files',
  processorDisputes: 'processor-disputes',
  processorSweep: 'processor-sweep',
  endpointFailing: 'endpoint-failing',
  statistics: 'statistics',
} as const;
