import type { Migration } from 'kysely';
import type { Def } from './dialect';

// Released: never rename this file or change what it does (deployed databases record its name).
//
// The API's request log (issue 47; docs/dashboard.md "Requests"): one row per authenticated
// /v1/ request of an environment, written in batches after the answers were sent
// (server/http/request-log.ts). The path is stored without its query string; no header,
// body or secret is: `public_key` names the key pair that opened the request. The page
// reads an environment's newest rows first, and looks a request id up; the retention job
// deletes by age alone.
export const migration = (d: Def): Migration => ({
  async up(db) {
    await d
      .table(db, 'api_requests')
      .build((t) =>
        t
          .addColumn('id', 'text', (c) => c.primaryKey())
          .addColumn('environment_id', 'text', (c) => c.notNull().references('environments.id'))
          .addColumn('method', 'text', (c) => c.notNull())
          .addColumn('path', 'text', (c) => c.notNull())
          .addColumn('status', 'integer', (c) => c.notNull())
          .addColumn('public_key', 'text', (c) => c.notNull())
          .addColumn('request_id', 'text', (c) => c.notNull())
          .addColumn('idempotency_key', 'integer', (c) => c.notNull())
          .addColumn('duration_ms', 'integer', (c) => c.notNull())
          .addColumn('created_at', 'text', (c) => c.notNull()),
      )
      .execute();
    await db.schema.createIndex('api_requests_newest').on('api_requests').columns(['environment_id', 'created_at', 'id']).execute();
    await db.schema.createIndex('api_requests_request_id').on('api_requests').columns(['environment_id', 'request_id']).execute();
    await db.schema.createIndex('api_requests_created').on('api_requests').column('created_at').execute();
  },
});
