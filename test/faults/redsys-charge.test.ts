import { chargeCases } from './charge-faults';
import { withProcessor } from './processor-matrix';
import { redsysProcessor } from './processors';

// The processor fault matrix for merchant-initiated charges of a card saved with Redsys, on the terminal with the query service.
withProcessor(() => redsysProcessor('1'), (bench) => chargeCases(bench));
