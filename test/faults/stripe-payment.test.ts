import { PAYMENT_FAULTS, paymentCases } from './payment-faults';
import { withProcessor } from './processor-matrix';
import { stripeProcessor } from './processors';

// The processor fault matrix for a payment through Stripe Checkout by redirect.
withProcessor(stripeProcessor, (bench) => paymentCases(bench, PAYMENT_FAULTS));
