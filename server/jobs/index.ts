import { type Deps, scopedDeps } from '../deps';
import { reviewDocuments } from './compliance-review';
import { createDelivery } from '../notify/worker';
import { createMailDelivery } from '../notify/mail-worker';
import { createMailTransport } from '../notify/mail-transport';
import { sendPayouts } from '../payments/payouts';
import { runMerchantPayouts } from '../payments/merchant-payouts';
import { writePayoutFiles } from '../payments/payout-files';
import { expireHolds } from '../payments/hold-expiry';
import { expireAuthorizations } from '../payments/authorization-expiry';
import { reconcileCalls } from '../payments/reconcile';
import { settleSourcePayments } from '../payments/sources';
import { postBalanceTransactions } from '../payments/balance';
import { closeOverdueDisputes, decideSandboxDisputes, openSandboxDisputes } from '../payments/disputes';
import { sendDisputeAnswers } from '../payments/processor-disputes';
import { sweepProcessors } from '../payments/processor-sweep';
import { chargeDueSubscriptions } from './subscription-charges';
import { expireDue } from '../payments/transaction-endings';
import type { Job } from './runner';
import { JOB_NAMES } from './names';

export { JOB_NAMES };
import { purgeOld } from './retention';
import { remindTrials } from './trial-reminders';
import { mailFailingEndpoints } from './endpoint-failing';
import { refreshStatistics } from '../store/statistics';

// Every background job of the service, registered here and nowhere else. Order matters
// only to runAll (tests): what expires or is reconciled in a round is delivered in it.


export function serviceJobs(deps: Deps): Job[] {
  const db = deps.database.db;
  const { allowPrivateNotifyUrls, webhookTimeoutMs } = deps.config;
  const deliver = createDelivery({ db, now: deps.now, outbox: deps.outbox, allowPrivateNotifyUrls, timeoutMs: webhookTimeoutMs });
  const { smtpUrl, dataDir, mailFrom, trialReminderDays } = deps.config;
  // One SMTP conversation's bound (connect, greeting, each reply), as mail servers allow for.
  const timeoutMs = 30_000;
  const transport = createMailTransport({ smtpUrl, dataDir, timeoutMs });
  const mail = createMailDelivery({ db, now: deps.now, transport, from: mailFrom, timeoutMs });
  const jobs: Job[] = [
    { name: JOB_NAMES.expiry, periodMs: 30_000, batch: 100, run: ({ now }) => expireDue(deps, now(), 100) },
    { name: JOB_NAMES.reconciliation, periodMs: 5_000, batch: 20, run: (round) => reconcileCalls(scopedDeps(deps, round), 20) },
    // After reconciliation in a round: a source payment waits for its charges to be recorded.
    { name: JOB_NAMES.sourcePayments, periodMs: 5_000, batch: 10, run: (round) => settleSourcePayments(scopedDeps(deps, round), 10) },
    { name: JOB_NAMES.holdExpiry, periodMs: 60_000, batch: 20, run: (round) => expireHolds(scopedDeps(deps, round), 20) },
    // Lapsed challenges of stores and hosted save pages past their expiry (payments/authorization-expiry.ts).
    { name: JOB_NAMES.authorizationExpiry, periodMs: 30_000, batch: 50, run: (round) => expireAuthorizations(scopedDeps(deps, round), 50) },
    {
      name: JOB_NAMES.compliance,
      periodMs: 5_000,
      batch: 50,
      run: ({ now, log, signal }) => reviewDocuments({ db, outbox: deps.outbox, now, log, signal }, 50),
    },
    // The merchant's balance follows confirmed captures, charges and refunds (payments/balance.ts).
    { name: JOB_NAMES.balance, periodMs: 1_000, batch: 50, run: (round) => postBalanceTransactions(scopedDeps(deps, round), 50) },
    // Disputes (payments/disputes.ts): the sandbox bank opens and decides them; the deadline closes them.
    { name: JOB_NAMES.sandboxDisputes, periodMs: 1_000, batch: 20, run: (round) => openSandboxDisputes(scopedDeps(deps, round), 20) },
    { name: JOB_NAMES.disputeDeadlines, periodMs: 60_000, batch: 50, run: (round) => closeOverdueDisputes(scopedDeps(deps, round), 50) },
    { name: JOB_NAMES.sandboxDisputeReviews, periodMs: 1_000, batch: 20, run: (round) => decideSandboxDisputes(scopedDeps(deps, round), 20) },
    // A connected processor's disputes: the merchant's answers sent to it (payments/processor-disputes.ts).
    { name: JOB_NAMES.processorDisputes, periodMs: 5_000, batch: 20, run: (round) => sendDisputeAnswers(scopedDeps(deps, round), 20) },
    // Once a day per connected processor: its recent charges and refunds against our books (payments/processor-sweep.ts).
    { name: JOB_NAMES.processorSweep, periodMs: 10 * 60_000, batch: 5, timeoutMs: 15 * 60_000, run: (round) => sweepProcessors(scopedDeps(deps, round), 5) },
    { name: JOB_NAMES.payouts, periodMs: 2_000, batch: 20, run: (round) => sendPayouts(scopedDeps(deps, round), 20) },
    // After the balance job in a round: the merchant's scheduled payouts, then sending them (payments/merchant-payouts.ts).
    { name: JOB_NAMES.merchantPayouts, periodMs: 2_000, batch: 20, run: (round) => runMerchantPayouts(scopedDeps(deps, round), 20) },
    // After both payout jobs: live environments' pending payouts into SEPA files (PAYOUT_PROVIDER=sepa-file; payments/payout-files.ts).
    { name: JOB_NAMES.payoutFiles, periodMs: 60_000, batch: 20, run: (round) => writePayoutFiles(scopedDeps(deps, round), 20) },
    { name: JOB_NAMES.subscriptions, periodMs: 1_000, batch: 20, run: (round) => chargeDueSubscriptions(scopedDeps(deps, round), 20) },
    // Up to 4 rounds at once: a receiver that takes its whole WEBHOOK_TIMEOUT_MS holds up its own round, not every other environment's webhooks.
    { name: JOB_NAMES.delivery, periodMs: 500, batch: 20, overlap: 4, run: (round) => deliver(20, round) },
    { name: JOB_NAMES.trialReminders, periodMs: 60_000, batch: 50, run: ({ now }) => remindTrials(db, now(), trialReminderDays, 50) },
    // An endpoint failing for a day: its team told once per failing spell (jobs/endpoint-failing.ts).
    { name: JOB_NAMES.endpointFailing, periodMs: 10 * 60_000, batch: 20, run: ({ now }) => mailFailingEndpoints(db, deps.outbox, now(), 20) },
    // After the reminders in a round: what a round queues, it sends.
    { name: JOB_NAMES.mail, periodMs: 1_000, batch: 10, run: (round) => mail(10, round) },
    // Buckets full again are as good as absent: forgotten, so the table holds only recent callers.
    { name: JOB_NAMES.rateLimits, periodMs: 60_000, batch: 1000, run: ({ now }) => deps.limiter.sweep(now(), 1000) },
    { name: JOB_NAMES.retention, periodMs: 5 * 60_000, batch: 500, run: (round) => purgeOld(scopedDeps(deps, round), round.now(), 500) },
    // SQLite's planner statistics, at start and hourly (store/statistics.ts): the dashboard's plans depend on them.
    { name: JOB_NAMES.statistics, periodMs: 60 * 60_000, run: () => refreshStatistics(deps.database).then(() => 0) },
  ];
  // JOB_PERIODS: the operator's periods, where given, instead of these.
  return jobs.map((job) => ({ ...job, periodMs: deps.config.jobPeriods[job.name] ?? job.periodMs }));
}
