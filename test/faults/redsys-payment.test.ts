import { PAYMENT_FAULTS, paymentCases } from './payment-faults';
import { withProcessor } from './processor-matrix';
import { redsysProcessor } from './processors';

// The processor fault matrix for a payment on Redsys's page by redirect (Redsys is not asked before the customer goes there: nothing to refuse).
withProcessor(() => redsysProcessor('1'), (bench) => paymentCases(bench, PAYMENT_FAULTS.filter((f) => f !== 'refuse')));
