import { type Migration } from 'kysely';
import { type Def, owned } from './dialect';

// Released: never rename this file or change what it does (deployed databases record its name).
export const migration = (d: Def): Migration => ({
  async up(db) {
    await d
      .table(db, 'clients')
      .build((t) =>
        owned(t)
          .addColumn('client_id', 'text')
          .addColumn('name', 'text', (c) => c.notNull())
          .addColumn('client_type', 'text')
          .addColumn('id_type', 'text')
          .addColumn('id_country', 'text', (c) => c.notNull())
          .addColumn('id_number', 'text', (c) => c.notNull())
          .addColumn('id_expiration_date', 'text')
          .addColumn('email', 'text')
          .addColumn('phone', 'text')
          .addColumn('web', 'text')
          .addColumn('incorporation_date', 'text')
          .addColumn('birth_date', 'text')
          .addColumn('birth_country', 'text')
          .addColumn('nationality', 'text')
          .addColumn('street', 'text')
          .addColumn('postal_code', 'text')
          .addColumn('city', 'text')
          .addColumn('province', 'text')
          .addColumn('country', 'text')
          .addColumn('notify_url', 'text')
          .addColumn('enabled', d.int, (c) => c.notNull())
          .addColumn('enabled_by_compliance', d.int, (c) => c.notNull()),
      )
      .execute();
    await d
      .table(db, 'client_ibans')
      .build((t) =>
        owned(t)
          .addColumn('client_ref', 'text', (c) => c.notNull().references('clients.id'))
          .addColumn('iban_id', 'text')
          .addColumn('iban', 'text', (c) => c.notNull())
          .addColumn('notify_url', 'text')
          .addColumn('enabled', d.int, (c) => c.notNull())
          .addColumn('enabled_by_compliance', d.int, (c) => c.notNull()),
      )
      .execute();
    await d
      .table(db, 'client_documents')
      .build((t) =>
        owned(t)
          .addColumn('client_ref', 'text', (c) => c.notNull().references('clients.id'))
          .addColumn('type', 'text', (c) => c.notNull())
          .addColumn('status', 'text', (c) => c.notNull())
          .addColumn('status_reason', 'text')
          .addColumn('file_name', 'text', (c) => c.notNull())
          .addColumn('content_type', 'text', (c) => c.notNull())
          .addColumn('size', d.int, (c) => c.notNull())
          .addColumn('sha256', 'text', (c) => c.notNull())
          .addColumn('reviewed_at', 'text'),
      )
      .execute();
    // The bytes apart, so listing documents never reads files.
    await d
      .table(db, 'client_document_files')
      .build((t) =>
        t
          .addColumn('document_id', 'text', (c) => c.primaryKey().references('client_documents.id'))
          .addColumn('data', d.bytes, (c) => c.notNull()),
      )
      .execute();
    // NULLs are distinct in both engines: only given external ids must be unique.
    await db.schema.createIndex('clients_env_client_id').unique().on('clients').columns(['environment_id', 'client_id']).execute();
    await db.schema.createIndex('clients_env_id').on('clients').columns(['environment_id', 'id']).execute();
    await db.schema.createIndex('client_ibans_client_iban_id').unique().on('client_ibans').columns(['client_ref', 'iban_id']).execute();
    await db.schema.createIndex('client_ibans_client').on('client_ibans').columns(['client_ref', 'id']).execute();
    await db.schema.createIndex('client_documents_client').on('client_documents').columns(['client_ref', 'id']).execute();
    await db.schema.createIndex('client_documents_pending').on('client_documents').columns(['status', 'id']).execute();
  },
});
