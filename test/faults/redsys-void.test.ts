import { actionFaultMatrix, redsysExpected } from './processor-matrix';
import { redsysProcessor } from './processors';

// The processor fault matrix for Redsys's cancellations of a pre-authorisation (a file per processor and route).
actionFaultMatrix(() => redsysProcessor('1'), ['void'], undefined, redsysExpected(true));
