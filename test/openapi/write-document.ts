import { writeFileSync } from 'node:fs';
import { openApiDocument } from '../../server/api/index';
import { RELEASE_ORIGIN } from './compatibility';

// Writes the OpenAPI document the service publishes at /v1/openapi.json to the file named
// on the command line, without starting a server, for the linters (npm run lint:openapi).

const out = process.argv[2];
if (!out) throw new Error('usage: tsx test/openapi/write-document.ts <file.json>');
writeFileSync(out, JSON.stringify(openApiDocument(process.env.PUBLIC_URL ?? RELEASE_ORIGIN), null, 2));
