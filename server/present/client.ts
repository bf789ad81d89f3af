import type { Client, ClientIban } from '../store/clients';
import type { ClientDocumentRow } from '../store/schema';

// Clients, their IBANs and documents as the API shows them (and as their events carry
// them). A document never carries its bytes.

/** The fields a merchant writes, as the API reads them back: what a PATCH merges into. */
export function clientFieldsOf(row: Client) {
  const { id: _, environment_id: __, created_at: ___, updated_at: ____, enabled_by_compliance: _____, ...fields } = row;
  return fields;
}

export function presentClient(row: Client) {
  return {
    id: row.id,
    enabled_by_compliance: row.enabled_by_compliance,
    ...clientFieldsOf(row),
    created: row.created_at,
    updated: row.updated_at,
  };
}

export const ibanFieldsOf = (row: ClientIban) => ({
  iban_id: row.iban_id,
  iban: row.iban,
  notify_url: row.notify_url,
  enabled: row.enabled,
  account_holder_name: row.account_holder_name,
});

export function presentIban(row: ClientIban) {
  return {
    id: row.id,
    client: row.client_ref,
    enabled_by_compliance: row.enabled_by_compliance,
    ...ibanFieldsOf(row),
    created: row.created_at,
    updated: row.updated_at,
  };
}

export function presentDocument(row: ClientDocumentRow) {
  return {
    id: row.id,
    client: row.client_ref,
    type: row.type as 'identity_front' | 'identity_back' | 'proof_of_address' | 'company_registration' | 'bank_statement' | 'other',
    status: row.status,
    status_reason: row.status_reason,
    file: {
      name: row.file_name,
      content_type: row.content_type as 'application/pdf' | 'image/png' | 'image/jpeg' | 'image/webp',
      size: row.size,
      sha256: row.sha256,
    },
    reviewed: row.reviewed_at,
    created: row.created_at,
    updated: row.updated_at,
  };
}
