import { faultMatrix } from '../faults/matrix';

// One real-process case per fault kind per engine in `npm test`: a hosted payment through a
// processor, with the service SIGKILLed before, during and after the gateway call, or a
// processor that refuses before acting or declines (test/faults/matrix.ts; `npm run
// test:faults` runs every money route). The answers that go missing are in
// fault-kinds-lost-answers.test.ts: two files of about the same length, so the two test
// workers share them.
faultMatrix(['hosted pay'], ['kill-before', 'kill-during', 'kill-after', 'refuse', 'decline']);
