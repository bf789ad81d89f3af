import { recordProcessorAttention } from '../store/processor-attention';
import type { PaymentDeps } from './ask';
import type { Gateway } from './gateway';

// What a connected processor told us that our books cannot take goes to a person, never
// dropped: an attention item of the environment (store/processor-attention.ts, the
// Overview's "Needs attention"), once per processor and object, logged the first time.

/** Where what a processor said came from: its environment and gateway, and the event (null: the daily sweep found it). */
export interface ProcessorSource {
  environmentId: string;
  processorId: string;
  gateway: Gateway;
  event: string | null;
  type: string;
}

/** Stores an item for a person (once per processor and subject) and logs it at error level the first time. */
export async function needsAttention(
  deps: Pick<PaymentDeps, 'database' | 'log' | 'now'>,
  source: ProcessorSource,
  item: { subject: string; reference: string | null; why: string },
): Promise<void> {
  const row = { environment_id: source.environmentId, processor_id: source.processorId, event_id: source.event, event_type: source.type, ...item };
  if (await recordProcessorAttention(deps.database.db, row, deps.now())) {
    deps.log.error({ processor: source.processorId, event: source.event, type: source.type, subject: item.subject, reference: item.reference, why: item.why }, 'processor event needs attention');
  }
}
