import { chargeCases } from '../faults/charge-faults';
import { paymentCases } from '../faults/payment-faults';
import { actionCases, redsysExpected, withProcessor } from '../faults/processor-matrix';
import { redsysProcessor } from '../faults/processors';

// One real-process case per fault kind per engine in `npm test` with the Redsys connector
// against its double (test/faults/processor-matrix.ts): killed before Redsys carries a
// refund out and while it holds its answer (after the restart, the query's count against
// the one kept before sending: not made, or one refund recorded once), during a payment
// (the customer pays while the service is down) and after; a refund whose answer is lost
// (found by the query service: one refund at Redsys) or answered by a 500; Redsys refusing;
// a decline; a notification that comes late; a merchant-initiated charge of a saved card
// killed while Redsys holds its answer, and one whose answer is lost (charge-faults.ts).
withProcessor(() => redsysProcessor('1'), (bench) => {
  paymentCases(bench, ['kill-during', 'late', 'decline']);
  actionCases(bench, 'refund', ['kill-before', 'kill-during', 'lose', 'fail-after', 'refuse'], redsysExpected(true));
  actionCases(bench, 'capture', ['kill-after'], redsysExpected(true));
  chargeCases(bench, ['kill-during', 'lose']);
});
