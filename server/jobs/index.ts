import type { Deps } from '../deps';
import { reviewDocuments } from './compliance-review';
import { createDelivery } from '../notify/worker';
import { sendPayouts } from '../payments/payouts';
import { reconcileCalls } from '../payments/reconcile';
import { chargeDueSubscriptions } from './subscription-charges';
import { expireDue } from '../store/payments';
import type { Job } from './runner';

// Every background job of the service, registered here and nowhere else. Order matters
// only to runAll (tests): what expires or is reconciled in a round is delivered in it.

export const JOB_NAMES = {
  expiry: 'expiry',
  reconciliation: 'reconciliation',
  compliance: 'compliance-review',
  payouts: 'payouts',
  subscriptions: 'subscription-charges',
  delivery: 'webhook-delivery',
} as const;

export function serviceJobs(deps: Deps): Job[] {
  const db = deps.database.db;
  const deliver = createDelivery({ db, log: deps.log, now: deps.now, allowPrivateNotifyUrls: deps.config.allowPrivateNotifyUrls });
  return [
    { name: JOB_NAMES.expiry, periodMs: 30_000, batch: 100, run: ({ now }) => expireDue(db, now(), deps.outbox, 100) },
    { name: JOB_NAMES.reconciliation, periodMs: 5_000, batch: 20, run: () => reconcileCalls(deps, 20) },
    {
      name: JOB_NAMES.compliance,
      periodMs: 5_000,
      batch: 50,
      run: ({ now, log, signal }) => reviewDocuments({ db, outbox: deps.outbox, now, log, signal }, 50),
    },
    { name: JOB_NAMES.payouts, periodMs: 2_000, batch: 20, run: () => sendPayouts(deps, 20) },
    { name: JOB_NAMES.subscriptions, periodMs: 1_000, batch: 20, run: () => chargeDueSubscriptions(deps, 20) },
    { name: JOB_NAMES.delivery, periodMs: 500, batch: 20, run: () => deliver(20) },
  ];
}
