import { PAYMENT_FAULTS, paymentFaultMatrix } from './payment-faults';
import { stripeProcessor } from './processors';

// The processor fault matrix for a payment through Stripe Checkout by redirect.
paymentFaultMatrix(stripeProcessor, PAYMENT_FAULTS);
