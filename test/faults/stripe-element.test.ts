import { PAYMENT_FAULTS, paymentCases, RESTART_FAULTS, START_FAULTS } from './payment-faults';
import { withProcessor } from './processor-matrix';
import { stripeElementProcessor } from './processors';

// The processor fault matrix for a payment through Stripe's Payment Element in our page,
// whose PaymentIntent our server makes before the customer types a card: its answer lost
// too, and lost before a restart.
withProcessor(stripeElementProcessor, (bench) => paymentCases(bench, [...PAYMENT_FAULTS, ...START_FAULTS, ...RESTART_FAULTS]));
