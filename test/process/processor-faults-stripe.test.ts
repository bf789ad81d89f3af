import { chargeCases } from '../faults/charge-faults';
import { paymentCases } from '../faults/payment-faults';
import { actionCases, withProcessor } from '../faults/processor-matrix';
import { stripeElementOf, stripeProcessor } from '../faults/processors';

// One real-process case per fault kind per engine in `npm test` with the Stripe connector
// against its double (test/faults/processor-matrix.ts; `npm run test:faults` runs every
// fault on every route), each kind on one route, every route once: an event that comes
// late and a decline on a payment by Checkout; a Payment Element's PaymentIntent made and
// its answer lost, by a cut connection and by a 500, and lost before a restart (the one
// kind whose lookup is of a reference the service no longer remembers sending); killed
// before Stripe refunds, a refund's answer lost by a cut connection, Stripe refusing one;
// killed after a capture is on our books; an off-session charge of a saved card killed
// while Stripe holds its answer, and one answered by a 500 after it was made
// (charge-faults.ts). Redsys's are in processor-faults-redsys.test.ts, so the two test
// workers share them.
withProcessor(stripeProcessor, (bench) => {
  paymentCases(bench, ['late', 'decline']);
  paymentCases({ ...bench, p: stripeElementOf(bench.p) }, ['lose-start', 'fail-start', 'lose-start-kill']);
  actionCases(bench, 'refund', ['kill-before', 'lose', 'refuse']);
  actionCases(bench, 'capture', ['kill-after']);
  chargeCases(bench, ['kill-during', 'fail-after']);
});
