// The SDK's resources (src/generated/resources.ts), written from the OpenAPI document's
// operation ids. An id is a verb, the noun of a resource and perhaps more
// (`listTransactions`, `captureSale`, `rollWebhookEndpointSecret`): the method is the verb
// with the more (`list`, `capture`, `rollSecret`). A resource is named by the plural its
// list operation uses (`listTaxes`: `taxes`), or by its noun when it has none (`balance`);
// a noun under another's path is nested in it (`/client/{clientId}/iban/`: `clients.ibans`).

/** The nouns the SDK has a resource for: an operation of any other is reached through `client.api`. */
const NOUNS = [
  'Transaction', 'Sale', 'Authorization', 'Subscription', 'Dispute',
  'Client', 'ClientIban', 'ClientDocument', 'Wallet', 'WalletEntry', 'Transfer',
  'Event', 'WebhookEndpoint',
  'Product', 'Plan', 'Tax', 'ShippingOption', 'Coupon',
  'Gateway', 'Currency', 'Balance', 'BalanceTransaction', 'ReturnSecret', 'Processor',
];

const METHODS = ['get', 'post', 'patch', 'delete'];
const lowerFirst = (s) => s.charAt(0).toLowerCase() + s.slice(1);
const camel = (s) => s.replace(/_(\w)/g, (_, c) => c.toUpperCase());
const plurals = (noun) => [`${noun}s`, `${noun}es`, `${noun.slice(0, -1)}ies`];

/** The noun an operation id names, with the verb and the rest around it; the longest wins (`BalanceTransaction` over `Balance`). */
function parse(operationId) {
  const [, verb, named] = /^([a-z]+)(.*)$/.exec(operationId);
  for (const noun of [...NOUNS].sort((a, b) => b.length - a.length)) {
    if (named === noun || plurals(noun).includes(named)) return { noun, verb, more: '', plural: named === noun ? undefined : named };
    if (named.startsWith(noun) && /^[A-Z]/.test(named.slice(noun.length))) return { noun, verb, more: named.slice(noun.length) };
  }
  return undefined;
}

/** An operation the SDK's calls can make: its successes are JSON (or empty), as openapi-fetch parses them. */
const answersJson = (operation) =>
  Object.entries(operation.responses).every(([status, r]) => !status.startsWith('2') || Object.keys(r.content ?? {}).every((type) => type === 'application/json'));

/** What a `#/components/…` reference points to. */
const referenced = (document, ref) => ref.slice(2).split('/').reduce((node, key) => node[key], document);

/** The operations of the document by noun, in the document's order. */
function operationsByNoun(document) {
  const byNoun = new Map();
  for (const [path, item] of Object.entries(document.paths)) {
    for (const method of METHODS) {
      const operation = item[method];
      const parsed = operation && answersJson(operation) && parse(operation.operationId);
      if (!parsed) continue;
      const parameters = [...(item.parameters ?? []), ...(operation.parameters ?? [])].map((p) => (p.$ref ? referenced(document, p.$ref) : p));
      const query = parameters.some((p) => p.in === 'query');
      if (!byNoun.has(parsed.noun)) byNoun.set(parsed.noun, []);
      byNoun.get(parsed.noun).push({ ...parsed, path, method, query, summary: operation.summary });
    }
  }
  return byNoun;
}

/** The noun's resource's name: the plural of its list operation, or else the noun. */
const nameOf = (noun, operations) => operations.find((o) => o.verb === 'list')?.plural ?? noun;

/** The noun this one is nested in: the longest other noun it starts with, when its paths are under that one's (`/client/{clientId}/iban/`). */
function parentOf(noun, operations) {
  const shortest = operations.map((o) => o.path).sort((a, b) => a.length - b.length)[0];
  if (!shortest.includes('{')) return undefined;
  return NOUNS.filter((n) => n !== noun && noun.startsWith(n)).sort((a, b) => b.length - a.length)[0];
}

/** One method: its arguments, the path's parameters first, then what the call takes. */
function methodSource(o, parent) {
  const keys = [...o.path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]);
  // A nested resource's first parameter is its parent's id: `walletId` rather than the path's `id`.
  const names = keys.map((k, i) => (i === 0 && parent ? `${lowerFirst(parent)}Id` : camel(k)));
  const ids = names.map((n) => `${n}: string, `).join('');
  const params = keys.length ? `{ ${keys.map((k, i) => (k === names[i] ? k : `${k}: ${names[i]}`)).join(', ')} }` : 'none';
  const p = JSON.stringify(o.path).replaceAll('"', "'");
  const name = o.verb + o.more;
  const doc = o.summary ? `/** ${o.summary.replaceAll('*/', '*\\/')} */\n` : '';
  if (o.method === 'get' && (o.verb === 'list' || o.query)) {
    const call = o.verb === 'list' ? `list(${p}, ${params}, query, o)` : `get(${p}, ${params}, o, query)`;
    return [name, `${doc}${name}: (${ids}query?: Query<${p}>, o?: CallOptions) => ${call},`];
  }
  if (o.method === 'get' || o.method === 'delete') {
    return [name, `${doc}${name}: (${ids}o?: CallOptions) => ${o.method === 'get' ? 'get' : 'del'}(${p}, ${params}, o),`];
  }
  return [name, `${doc}${name}: (${ids}...[body, o]: BodyArgs<${p}, '${o.method}'>) => ${o.method}(${p}, ${params}, body, o),`];
}

/** The tree of resources: names to methods' source lines, or to nested resources. */
function tree(document) {
  const byNoun = operationsByNoun(document);
  const placeOf = (noun) => {
    const operations = byNoun.get(noun);
    const parent = parentOf(noun, operations);
    const name = nameOf(noun, operations);
    return parent ? { parent, place: [...placeOf(parent).place, lowerFirst(name.slice(parent.length))] } : { place: [lowerFirst(name)] };
  };
  const root = {};
  for (const [noun, operations] of byNoun) {
    const { place, parent } = placeOf(noun);
    let node = root;
    for (const key of place) node = node[key] ??= {};
    for (const o of operations) {
      const [name, source] = methodSource(o, parent);
      if (name in node) throw new Error(`two operations of ${noun} make ${place.join('.')}.${name}: rename one's operationId`);
      node[name] = source;
    }
  }
  return root;
}

const render = (node, indent) =>
  Object.entries(node)
    .map(([key, value]) =>
      typeof value === 'string'
        ? value.replace(/^/gm, indent)
        : `${indent}${key}: {\n${render(value, `${indent}  `)}\n${indent}},`,
    )
    .join('\n');

/** The source of src/generated/resources.ts. */
export function resourcesSource(document) {
  return `// Generated by scripts/generate.mjs from the OpenAPI document's operation ids (scripts/resources.mjs): do not edit.
import type { Calls } from '../client.js';
import type { BodyArgs, CallOptions, Query } from '../types.js';

const none = {};

/** Every resource of the client, by name. */
export type Resources = ReturnType<typeof resources>;

/** One object per resource; each call is a line over its path, typed by the generated \`paths\`. */
export function resources({ get, post, patch, del, list }: Calls) {
  return {
${render(tree(document), '    ')}
  };
}
`;
}
