import { actionFaultMatrix } from './processor-matrix';
import { stripeProcessor } from './processors';

// The processor fault matrix for Stripe's cancellations of a hold (a file per processor and route).
actionFaultMatrix(stripeProcessor, ['void']);
