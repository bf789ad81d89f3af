import { chargeCases } from './charge-faults';
import { withProcessor } from './processor-matrix';
import { stripeProcessor } from './processors';

// The processor fault matrix for off-session charges of a card saved with Stripe.
withProcessor(stripeProcessor, (bench) => chargeCases(bench));
