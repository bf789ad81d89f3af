import { PAYMENT_FAULTS, paymentFaultMatrix } from './payment-faults';
import { redsysProcessor } from './processors';

// The processor fault matrix for a payment on Redsys's page by redirect (Redsys is not asked before the customer goes there: nothing to refuse).
paymentFaultMatrix(() => redsysProcessor('1'), PAYMENT_FAULTS.filter((f) => f !== 'refuse'));
