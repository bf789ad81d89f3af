import type { Tx } from '../../server/store/db';
import { type EventFamily, type EventType, familyOf } from '../../server/domain/event-types';

// The event registry, checked by the compiler (npm run typecheck): a type outside a known
// family does not exist, and a snapshot table must cover every family.

export const paid: EventType = 'sale.captured';
export const holdExpired: EventType = 'sale.hold_expired';
export const family: EventFamily = familyOf('authorization.removed');

// @ts-expect-error no such family: it must be registered in EVENT_FAMILIES first
export const unknownFamily: EventType = 'wallet.created';
// @ts-expect-error no such change in a known family
export const unknownChange: EventType = 'sale.exploded';

type Snapshotter = (trx: Tx, id: string) => Promise<unknown>;
const none: Snapshotter = async () => undefined;
// @ts-expect-error every family needs its snapshot, or its events would be dropped
export const incomplete: Record<EventFamily, Snapshotter> = { transaction: none, sale: none };
