import { chargeCases } from '../faults/charge-faults';
import { paymentCases } from '../faults/payment-faults';
import { actionCases, withProcessor } from '../faults/processor-matrix';
import { stripeProcessor } from '../faults/processors';

// One real-process case per fault kind per engine in `npm test` with the Stripe connector
// against its double (test/faults/processor-matrix.ts; `npm run test:faults` runs every
// fault on every route): killed before the processor acts, during (the customer pays while
// the service is down) and after; an answer lost by a cut connection and by a 500; Stripe
// refusing; a decline; an event that comes late; an off-session charge of a saved card
// killed while Stripe holds its answer, and one answered by a 500 after it was made
// (charge-faults.ts). Redsys's are in
// processor-faults-redsys.test.ts, so the two test workers share them.
withProcessor(stripeProcessor, (bench) => {
  paymentCases(bench, ['kill-during', 'late', 'decline']);
  actionCases(bench, 'refund', ['kill-before', 'lose', 'fail-after', 'refuse']);
  actionCases(bench, 'capture', ['kill-after']);
  chargeCases(bench, ['kill-during', 'fail-after']);
});
