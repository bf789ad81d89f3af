import { findCurrency } from '../domain/currencies';
import { EVIDENCE_TEXT_FIELDS, type EvidenceField } from '../domain/disputes';
import { unitsToNumber } from '../domain/money';
import type { StoredDispute } from '../store/disputes';

// A dispute as the API shows it (and as its events carry it).

export function presentDispute({ row, evidence, files }: StoredDispute) {
  const money = (units: number) => unitsToNumber(units, findCurrency(row.currency)?.exponent ?? 2);
  return {
    id: row.id,
    sale: row.sale_id,
    amount: money(row.amount),
    currency: row.currency,
    fee: money(row.fee),
    reason: row.reason,
    status: row.status,
    evidence_due_by: row.evidence_due_by,
    evidence: {
      // Every field, null when not given: a merchant sees what it can still send.
      ...(Object.fromEntries(EVIDENCE_TEXT_FIELDS.map((f) => [f, evidence[f] ?? null])) as Record<EvidenceField, string | null>),
      files: files.map((f) => ({ id: f.id, name: f.file_name, content_type: f.content_type, size: f.size, sha256: f.sha256, created: f.created_at })),
    },
    submitted: row.submitted_at,
    closed: row.closed_at,
    created: row.created_at,
    updated: row.updated_at,
  };
}
