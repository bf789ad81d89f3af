// negotiator 1.1 (Express's own content negotiation), the one call used here. Its
// DefinitelyTyped types predate the `preferred` option, which breaks ties between
// encodings the client rates equally in the server's favour.
declare module 'negotiator' {
  import type { IncomingMessage } from 'node:http';

  export default class Negotiator {
    constructor(request: Pick<IncomingMessage, 'headers'>);
    encoding(available: readonly string[], options?: { preferred?: readonly string[] }): string | undefined;
  }
}
