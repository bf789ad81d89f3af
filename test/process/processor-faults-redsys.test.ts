import { chargeCases } from '../faults/charge-faults';
import { paymentCases } from '../faults/payment-faults';
import { actionCases, redsysExpected, withProcessor } from '../faults/processor-matrix';
import { redsysProcessor } from '../faults/processors';

// One real-process case per fault kind per engine in `npm test` with the Redsys connector
// against its double (test/faults/processor-matrix.ts; `npm run test:faults` runs every
// fault on every route), each kind on one route, every route once: a notification that
// comes late and a decline on a payment; killed before Redsys carries a refund out and
// while it holds its answer (after the restart, the query's count against the one kept
// before sending: not made, or one refund recorded once), killed while the query service
// holds that count, before it is kept (after the restart, the order asked: no refund of its
// amount there, so not made, and no person needed), a refund answered by a 500
// (found by the query service: one refund at Redsys), Redsys refusing one; killed after a
// capture is on our books; a merchant-initiated charge of a saved card whose answer is
// lost (charge-faults.ts).
withProcessor(() => redsysProcessor('1'), (bench) => {
  paymentCases(bench, ['late', 'decline']);
  actionCases(bench, 'refund', ['kill-before', 'kill-during', 'kill-counting', 'fail-after', 'refuse'], redsysExpected(true));
  actionCases(bench, 'capture', ['kill-after'], redsysExpected(true));
  chargeCases(bench, ['lose']);
});
