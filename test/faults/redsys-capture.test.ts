import { actionFaultMatrix, redsysExpected } from './processor-matrix';
import { redsysProcessor } from './processors';

// The processor fault matrix for Redsys's confirmations of a pre-authorisation (a file per processor and route).
actionFaultMatrix(() => redsysProcessor('1'), ['capture'], undefined, redsysExpected(true));
