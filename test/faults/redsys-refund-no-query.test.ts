import { actionFaultMatrix, redsysExpected } from './processor-matrix';
import { redsysProcessor } from './processors';

// The processor fault matrix for Redsys's refunds on a terminal without the query service: a refund whose outcome is unknown goes to attention and is never sent again.
actionFaultMatrix(() => redsysProcessor('2'), ['refund'], undefined, redsysExpected(false));
