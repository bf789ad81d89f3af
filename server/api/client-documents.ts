import { createHash } from 'node:crypto';
import { z } from 'zod';
import { DOCUMENT_STATUSES, DOCUMENT_TYPES } from '../domain/compliance';
import { listPage, pageEnvelopeSchema, pageQuery } from '../http/pagination';
import { found, notFound } from '../http/problem';
import { type FileAnswer, route, type RouteDef } from '../http/route';
import { getClient, getDocument, getDocumentFile, insertDocument, listDocuments } from '../store/clients';
import { presentDocument } from '../present/client';
import { DOCUMENT_FORMATS, documentCreate, documentOut, MAX_DOCUMENT_BYTES } from '../schemas/client-objects';
import { checkedBytes, DOCUMENT_LIMIT_TEXT } from '../schemas/document-bytes';
import { DOCUMENT_EXAMPLE, page } from './examples';

// A client's documents, for the compliance review. Sent as JSON with the bytes in base64
// (the spec has every body in JSON); stored with their bytes in the database, so they are
// as durable as any other write; never editable. The bytes come back only from …/file/.

const TAG = 'Clients';

/** The JSON body that carries the largest document: base64 is 4/3 of the bytes, plus the other fields. */
export const DOCUMENT_BODY_LIMIT = Math.ceil(MAX_DOCUMENT_BYTES / 3) * 4 + 16 * 1024;

function listRoute(): RouteDef {
  return route({
    method: 'get',
    path: '/client/{clientId}/document/',
    operationId: 'listClientDocuments',
    description: "The client's documents, newest first, without their bytes; filter by `type` or `status`.",
    example: { response: page([DOCUMENT_EXAMPLE]) },
    summary: "List a client's documents, newest first",
    tag: TAG,
    query: pageQuery.extend({
      type: z.enum(DOCUMENT_TYPES).optional().describe('Only documents of this type'),
      status: z.enum(DOCUMENT_STATUSES).optional().describe('Only documents in this state'),
    }),
    response: pageEnvelopeSchema(documentOut),
    status: 200,
    async handler(ctx) {
      const { env, params, db } = ctx;
      if (!(await getClient(db, env.id, params.clientId!))) throw notFound('client');
      return listPage(ctx, (filters, p) => listDocuments(db, env.id, params.clientId!, filters, p), presentDocument);
    },
  });
}

function createRoute(): RouteDef {
  return route({
    method: 'post',
    path: '/client/{clientId}/document/',
    operationId: 'createClientDocument',
    description: 'Uploads a document (PDF, PNG, JPEG or WebP, base64 in `file.data`, at most 10 MiB: larger is a 413). Its type is checked against the bytes. It stays `pending` until the compliance review.',
    example: { request: { type: 'identity_front', file: { name: 'id-card.pdf', content_type: 'application/pdf', data: 'JVBERi0xLjQK' } }, response: DOCUMENT_EXAMPLE },
    summary: `Upload a document (PDF, PNG, JPEG or WebP, base64, at most ${DOCUMENT_LIMIT_TEXT}); it waits for the compliance review`,
    tag: TAG,
    body: documentCreate,
    response: documentOut,
    status: 201,
    problems: [413],
    async handler({ env, params, body, deps, db }) {
      const bytes = await checkedBytes(body.file);
      const values = {
        type: body.type,
        file_name: body.file.name,
        content_type: body.file.content_type,
        size: bytes.byteLength,
        sha256: createHash('sha256').update(bytes).digest('hex'),
      };
      const row = found(await insertDocument(db, env.id, params.clientId!, values, bytes, deps.now()), 'client');
      return presentDocument(row);
    },
  });
}

function getRoute(): RouteDef {
  return route({
    method: 'get',
    path: '/client/{clientId}/document/{id}/',
    operationId: 'getClientDocument',
    description: "One of the client's documents, without its bytes.",
    example: { response: DOCUMENT_EXAMPLE },
    summary: "Get one of a client's documents (without its bytes)",
    tag: TAG,
    response: documentOut,
    status: 200,
    async handler({ env, params, db }) {
      const row = found(await getDocument(db, env.id, params.clientId!, params.id!), 'document');
      return presentDocument(row);
    },
  });
}

function downloadRoute(): RouteDef {
  return route({
    method: 'get',
    path: '/client/{clientId}/document/{id}/file/',
    operationId: 'downloadClientDocument',
    description: 'The bytes of the document, as an attachment of its content type.',
    example: {},
    summary: "Download a document's bytes, as an attachment",
    tag: TAG,
    file: Object.keys(DOCUMENT_FORMATS),
    status: 200,
    async handler({ env, params, db }): Promise<FileAnswer> {
      const file = found(await getDocumentFile(db, env.id, params.clientId!, params.id!), 'document');
      return { name: file.file_name, contentType: file.content_type, bytes: file.data };
    },
  });
}

export const clientDocumentRoutes = (): RouteDef[] => [
  listRoute(),
  createRoute(),
  getRoute(),
  downloadRoute(),
];
