import { z } from 'zod';
import type { RouteDef } from './route';

// The OpenAPI 3.1 document is generated from the route declarations and the zod schemas
// that validate requests: there is no second copy of the contract to drift.

const problem = {
  description: 'Problem details (RFC 9457)',
  content: {
    'application/problem+json': {
      schema: {
        type: 'object',
        required: ['type', 'title', 'status', 'detail'],
        properties: {
          type: { type: 'string' },
          title: { type: 'string' },
          status: { type: 'integer' },
          detail: { type: 'string' },
          errors: {
            type: 'array',
            items: {
              type: 'object',
              required: ['path', 'message'],
              properties: { path: { type: 'string' }, message: { type: 'string' } },
            },
          },
        },
      },
    },
  },
};

export function buildOpenApi(routes: RouteDef[], info: { version: string }) {
  const schemas: Record<string, unknown> = {};
  // Schemas with an `id` in their metadata become shared components.
  const toSchema = (schema: z.ZodType, io: 'input' | 'output') => {
    const generated = z.toJSONSchema(schema, { target: 'draft-2020-12', io, unrepresentable: 'any' });
    // Shared schemas land in $defs; in an OpenAPI document they live in components.
    const json = JSON.parse(
      JSON.stringify(generated).replaceAll('"#/$defs/', '"#/components/schemas/'),
    ) as Record<string, unknown> & { $defs?: Record<string, unknown> };
    const { $defs, $schema: _, ...rest } = json;
    Object.assign(schemas, $defs ?? {});
    const id = (z.globalRegistry.get(schema) as { id?: string } | undefined)?.id;
    if (id) {
      const ref = `#/components/schemas/${id}`;
      // zod lifts a root schema with an id into $defs and leaves only a $ref to it at the
      // root: storing that root would replace the schema with a reference to itself.
      if (rest.$ref !== ref) schemas[id] = rest;
      return { $ref: ref };
    }
    return rest;
  };

  const paths: Record<string, Record<string, unknown>> = {};
  for (const r of routes) {
    const params: unknown[] = [...r.path.matchAll(/\{(\w+)\}/g)].map(([, name]) => ({
      name,
      in: 'path',
      required: true,
      schema: { type: 'string', format: 'uuid' },
    }));
    if (r.query instanceof z.ZodObject) {
      for (const [name, s] of Object.entries(r.query.shape as Record<string, z.ZodType>)) {
        params.push({ name, in: 'query', required: false, schema: toSchema(s, 'input') });
      }
    }
    if (r.method === 'post') {
      params.push({
        name: 'Idempotency-Key',
        in: 'header',
        required: false,
        description: 'Replays the first response for 24 h; a different body is 422, a concurrent repeat 409',
        schema: { type: 'string', maxLength: 255 },
      });
    }
    const binary = { schema: { type: 'string', format: 'binary' } };
    const responses: Record<string, unknown> = {
      [r.status]: r.file
        ? { description: 'The file, as an attachment', content: Object.fromEntries(r.file.map((type) => [type, binary])) }
        : r.response
          ? { description: 'Success', content: { 'application/json': { schema: toSchema(r.response, 'output') } } }
          : { description: 'Done, no content' },
      '400': problem,
      '401': problem,
    };
    if (r.path.includes('{')) responses['404'] = problem;
    if (r.method === 'post') {
      responses['409'] = problem;
      responses['422'] = problem;
    }
    for (const status of r.problems ?? []) responses[status] = problem;
    (paths[r.path] ??= {})[r.method] = {
      summary: r.summary,
      tags: [r.tag],
      operationId: `${r.method}${r.path.replace(/\{id\}/g, 'ById').replace(/[^A-Za-z]+(.)?/g, (_, c: string | undefined) => (c ?? '').toUpperCase())}`,
      parameters: params,
      ...(r.body
        ? { requestBody: { required: true, content: { 'application/json': { schema: toSchema(r.body, 'input') } } } }
        : {}),
      responses,
    };
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Payment Service API',
      version: info.version,
      description: 'Transactions, catalogue, gateways and currencies. Amounts are decimal numbers in major units.',
    },
    servers: [{ url: '/v1' }],
    security: [{ AppKeys: [] }],
    paths,
    components: {
      schemas,
      securitySchemes: {
        AppKeys: {
          type: 'apiKey',
          in: 'header',
          name: 'Authorization',
          description: 'The value is `AppKeys <public_key>:<secret_key>`',
        },
      },
    },
  };
}
