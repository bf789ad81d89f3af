import { z } from 'zod';

// The part of an OpenAPI 3.1 document the reference page reads, parsed once with zod: the
// page renders whatever the service generates (server/http/openapi.ts) and fails at start,
// not halfway through a render, if the generator ever changes the shape it relies on.

/** A JSON Schema as the generator writes them (draft 2020-12 through zod, plus hand-written ones). */
export interface JsonSchema {
  $ref?: string;
  type?: string | string[];
  description?: string;
  format?: string;
  enum?: unknown[];
  const?: unknown;
  required?: string[];
  properties?: Record<string, JsonSchema>;
  items?: JsonSchema;
  additionalProperties?: boolean | JsonSchema;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  allOf?: JsonSchema[];
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  exclusiveMaximum?: number;
  minLength?: number;
  maxLength?: number;
  minItems?: number;
  maxItems?: number;
  minProperties?: number;
  pattern?: string;
}

export const JsonSchema: z.ZodType<JsonSchema> = z.lazy(() =>
  z.looseObject({
    $ref: z.string().optional(),
    type: z.union([z.string(), z.array(z.string())]).optional(),
    description: z.string().optional(),
    format: z.string().optional(),
    enum: z.array(z.unknown()).optional(),
    const: z.unknown().optional(),
    required: z.array(z.string()).optional(),
    properties: z.record(z.string(), JsonSchema).optional(),
    items: JsonSchema.optional(),
    additionalProperties: z.union([z.boolean(), JsonSchema]).optional(),
    anyOf: z.array(JsonSchema).optional(),
    oneOf: z.array(JsonSchema).optional(),
    allOf: z.array(JsonSchema).optional(),
    minimum: z.number().optional(),
    maximum: z.number().optional(),
    exclusiveMinimum: z.number().optional(),
    exclusiveMaximum: z.number().optional(),
    minLength: z.number().optional(),
    maxLength: z.number().optional(),
    minItems: z.number().optional(),
    maxItems: z.number().optional(),
    minProperties: z.number().optional(),
    pattern: z.string().optional(),
  }),
);

const Ref = z.object({ $ref: z.string() });

const Parameter = z.object({
  name: z.string(),
  in: z.enum(['path', 'query', 'header', 'cookie']),
  required: z.boolean().optional(),
  description: z.string().optional(),
  schema: JsonSchema,
});
export type Parameter = z.infer<typeof Parameter>;

/** A parameter as an operation has it: `shared` names the component it refers to, described once. */
export type OperationParameter = Parameter & { shared?: string };

const MediaType = z.object({ schema: JsonSchema.optional(), example: z.unknown().optional() });

const Response = z.object({
  description: z.string(),
  content: z.record(z.string(), MediaType).optional(),
});
type Response = z.infer<typeof Response>;

const Operation = z.object({
  operationId: z.string(),
  summary: z.string(),
  description: z.string().optional(),
  tags: z.array(z.string()).min(1),
  parameters: z.array(z.union([Ref, Parameter])).default([]),
  requestBody: z.object({ required: z.boolean().optional(), content: z.record(z.string(), MediaType) }).optional(),
  responses: z.record(z.string(), z.union([Ref, Response])),
});

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;

export const OpenApiDocument = z.object({
  openapi: z.string(),
  info: z.object({ title: z.string(), version: z.string(), description: z.string().optional() }),
  servers: z.array(z.object({ url: z.string() })).default([]),
  tags: z.array(z.object({ name: z.string(), description: z.string().optional() })).default([]),
  paths: z.record(z.string(), z.partialRecord(z.enum(METHODS), Operation)),
  components: z
    .object({
      schemas: z.record(z.string(), JsonSchema).default({}),
      responses: z.record(z.string(), Response).default({}),
      parameters: z.record(z.string(), Parameter).default({}),
      securitySchemes: z.record(z.string(), z.looseObject({ type: z.string(), description: z.string().optional() })).default({}),
    })
    .default({ schemas: {}, responses: {}, parameters: {}, securitySchemes: {} }),
});
export type OpenApiDocument = z.infer<typeof OpenApiDocument>;

/** One operation with everything the page shows resolved: no `$ref` left but in schemas. */
export interface ReferenceOperation {
  operationId: string;
  method: (typeof METHODS)[number];
  path: string;
  summary: string;
  description: string;
  parameters: OperationParameter[];
  requestBody?: { required: boolean; mediaType?: string; schema?: JsonSchema; example?: unknown };
  /** The first 2xx answer. */
  success?: { status: string; description: string; mediaType?: string; schema?: JsonSchema; example?: unknown };
  /** Error answers by status, with the shared response component each one names. */
  errors: { status: string; name: string; description: string }[];
}

export interface ReferenceTag {
  name: string;
  description: string;
  operations: ReferenceOperation[];
}

/** The last segment of a local `$ref` (`#/components/schemas/Transaction` → `Transaction`). */
export function refName(ref: string): string {
  return ref.slice(ref.lastIndexOf('/') + 1);
}

function firstContent(content: Record<string, z.infer<typeof MediaType>> | undefined) {
  const [mediaType, media] = Object.entries(content ?? {})[0] ?? [];
  return mediaType ? { mediaType, schema: media?.schema, example: media?.example } : {};
}

function resolveParameter(doc: OpenApiDocument, p: z.infer<typeof Ref> | Parameter): OperationParameter {
  if (!('$ref' in p)) return p;
  const shared = refName(p.$ref);
  const found = doc.components.parameters[shared];
  if (!found) throw new Error(`unresolved parameter ${p.$ref}`);
  return { ...found, shared };
}

/** The document's operations by tag, in the order of its `tags`, then of its paths. */
export function referenceTags(doc: OpenApiDocument): ReferenceTag[] {
  const tags = new Map<string, ReferenceTag>(doc.tags.map((t) => [t.name, { name: t.name, description: t.description ?? '', operations: [] }]));
  for (const [path, methods] of Object.entries(doc.paths)) {
    for (const method of METHODS) {
      const op = methods[method];
      if (!op) continue;
      const errors: ReferenceOperation['errors'] = [];
      let success: ReferenceOperation['success'];
      for (const [status, answer] of Object.entries(op.responses)) {
        const name = '$ref' in answer ? refName(answer.$ref) : undefined;
        const response = name ? doc.components.responses[name] : (answer as Response);
        if (!response) throw new Error(`unresolved response ${name}`);
        if (status.startsWith('2')) success ??= { status, description: response.description, ...firstContent(response.content) };
        else errors.push({ status, name: name ?? status, description: response.description });
      }
      const tag = op.tags[0]!;
      if (!tags.has(tag)) tags.set(tag, { name: tag, description: '', operations: [] });
      tags.get(tag)!.operations.push({
        operationId: op.operationId,
        method,
        path,
        summary: op.summary,
        description: op.description ?? '',
        parameters: op.parameters.map((p) => resolveParameter(doc, p)),
        ...(op.requestBody ? { requestBody: { required: op.requestBody.required ?? false, ...firstContent(op.requestBody.content) } } : {}),
        ...(success ? { success } : {}),
        errors,
      });
    }
  }
  return [...tags.values()].filter((t) => t.operations.length);
}
