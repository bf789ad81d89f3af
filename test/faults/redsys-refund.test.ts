import { actionFaultMatrix, redsysExpected } from './processor-matrix';
import { redsysProcessor } from './processors';

// The processor fault matrix for Redsys's refunds, on the terminal with the query service (a file per processor and route, so the runner's workers share them out).
actionFaultMatrix(() => redsysProcessor('1'), ['refund'], undefined, redsysExpected(true));
