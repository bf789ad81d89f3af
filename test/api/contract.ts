import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { apiRoutes } from '../../server/api/index';
import { buildOpenApi } from '../../server/http/openapi';
import { PROBLEM_CATALOGUE } from '../../server/http/problem';

// Every answer the API suite receives from /v1/ is checked against the published OpenAPI
// document: the status must be declared for the operation, and the body must be valid
// against the declared schema (problem bodies against Problem). A file download is taken
// as it is. A mismatch throws at the request, naming the operation and what differs.

type Json = Record<string, any>;

const doc = buildOpenApi(apiRoutes(), { version: 'test' }) as Json;

// strictRequired off: an either-or is a oneOf of `required` lists naming properties of the
// object around it (server/schemas/fields.ts eitherOf), which is plain JSON Schema.
const ajv = new Ajv2020({ allErrors: true, strict: true, strictRequired: false });
addFormats.default(ajv);
// The document's components, reachable from any compiled schema as `doc#/$defs/<name>`.
const rewrite = (value: unknown): any =>
  JSON.parse(JSON.stringify(value).replaceAll('"#/components/schemas/', '"doc#/$defs/'));
ajv.addSchema({ $id: 'doc', $defs: rewrite(doc.components.schemas) });

const operations = Object.entries(doc.paths as Record<string, Record<string, Json>>).map(([path, ops]) => ({
  path,
  pattern: new RegExp(`^${path.replace(/\{\w+\}/g, '[^/]+')}$`),
  ops,
}));

const compiled = new Map<string, ValidateFunction>();
function validator(key: string, schema: unknown): ValidateFunction {
  let fn = compiled.get(key);
  if (!fn) {
    fn = ajv.compile(rewrite(schema));
    compiled.set(key, fn);
  }
  return fn;
}

const resolve = (response: Json): Json =>
  response.$ref ? doc.components.responses[(response.$ref as string).split('/').pop()!] : response;

const mediaOf = (contentType: string | null) => (contentType ?? '').split(';')[0]!.trim().toLowerCase();

const STATUS_OF_TYPE = new Map(PROBLEM_CATALOGUE.map((p) => [p.type, p.status]));

function checkBody(what: string, key: string, schema: unknown, text: string, status: number, media: string): string[] {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return [`${what}: the body is not JSON: ${text.slice(0, 200)}`];
  }
  const validate = validator(key, schema);
  if (!validate(body)) {
    return (validate.errors ?? []).slice(0, 5).map((e) => `${what}: ${e.instancePath || '(body)'} ${e.message} ${JSON.stringify(e.params)}`);
  }
  if (media === 'application/problem+json') {
    // A problem's status is the answer's, and a type always comes with the same status.
    const problem = body as { type: string; status: number };
    if (problem.status !== status) return [`${what}: the problem says status ${problem.status}`];
    if (STATUS_OF_TYPE.get(problem.type) !== status) return [`${what}: ${problem.type} is a ${STATUS_OF_TYPE.get(problem.type)} problem`];
  }
  return [];
}

/**
 * The ways an answer disagrees with the document; empty when it agrees. `path` is the
 * request path under /v1, without the query.
 */
export function contractProblems(method: string, path: string, status: number, contentType: string | null, text: string): string[] {
  const m = method.toLowerCase();
  const what = `${method.toUpperCase()} ${path} → ${status}`;
  if (path === '/openapi.json') return [];
  // Unslashed paths are redirected to the slashed one, method and body kept.
  if (status === 308 && !path.endsWith('/')) return [];
  const media = mediaOf(contentType);
  const match = operations.find((o) => o.pattern.test(path));
  const op = match?.ops[m];
  if (!op) {
    // OPTIONS is HTTP's own, on every path: 204 with Allow, not an operation of the document.
    if (m === 'options' && status === 204 && match) return [];
    // No such operation: the answer is a problem all the same.
    if (status < 400) return [`${what}: answered ${status} where the document has no operation`];
    if (m === 'head') return [];
    if (media !== 'application/problem+json') return [`${what}: a problem must be application/problem+json, got ${contentType}`];
    return checkBody(what, 'Problem', { $ref: '#/components/schemas/Problem' }, text, status, media);
  }
  const declared = op.responses[String(status)] as Json | undefined;
  if (!declared) return [`${what}: status ${status} is not declared for ${op.operationId} (declared: ${Object.keys(op.responses).join(', ')})`];
  const response = resolve(declared);
  if (m === 'head') return [];
  if (!response.content) return text === '' ? [] : [`${what}: the document declares no body, got ${text.slice(0, 100)}`];
  const content = response.content as Record<string, Json>;
  const entry = content[media];
  if (!entry) return [`${what}: content type ${contentType} is not declared (declared: ${Object.keys(content).join(', ')})`];
  // A file download (format: binary) is taken as it is.
  if (!media.endsWith('json')) return [];
  return checkBody(what, `${op.operationId} ${status} ${media}`, entry.schema, text, status, media);
}

/** Throws when an answer of the API disagrees with the document. */
export function assertContract(method: string, url: string, status: number, headers: Headers, text: string): void {
  const { pathname } = new URL(url);
  if (!pathname.startsWith('/v1/')) return;
  const problems = contractProblems(method, pathname.slice(3), status, headers.get('content-type'), text);
  // Every answer is declared with the request id it carries.
  if (pathname !== '/v1/openapi.json' && !headers.get('x-request-id')) problems.push(`${method} ${pathname} → ${status}: no X-Request-Id`);
  if (problems.length) throw new Error(`The answer disagrees with the OpenAPI document:\n${problems.join('\n')}`);
}
