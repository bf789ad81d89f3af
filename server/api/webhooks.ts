import { z } from 'zod';
import { EVENT_TYPES, type EventFamily, type EventType, familyOf } from '../domain/event-types';
import { authorizationOut } from './authorizations';
import { CATALOGUE_VIEWS } from '../schemas/catalogue';
import { clientOut, documentOut, ibanOut } from '../schemas/client-objects';
import { disputeOut } from './disputes';
import { dateTime, livemode } from '../schemas/fields';
import { saleOut } from './sales';
import { subscriptionOut } from './subscriptions';
import { transactionOut } from './transactions';
import { merchantPayoutOut } from './merchant-payouts';
import { transferOut } from './transfers';
import { entryOut } from './wallets';
import { endpointOut } from './webhook-endpoints';

// The body of every event as it is POSTed, typed: `data` is the schema the API answers the
// object with, so a webhook handler generated from the document knows each event's fields.

/** What `data` is for each family: the same schema the object's own routes answer with. */
const DATA: Record<EventFamily, z.ZodType> = {
  transaction: transactionOut,
  sale: saleOut,
  authorization: authorizationOut,
  client: clientOut,
  iban: ibanOut,
  document: documentOut,
  wallet: entryOut,
  transfer: transferOut,
  merchant_payout: merchantPayoutOut,
  subscription: subscriptionOut,
  webhook_endpoint: endpointOut,
  product: CATALOGUE_VIEWS.product.output,
  plan: CATALOGUE_VIEWS.plan.output,
  tax: CATALOGUE_VIEWS.tax.output,
  shipping: CATALOGUE_VIEWS.shipping.output,
  coupon: CATALOGUE_VIEWS.coupon.output,
  dispute: disputeOut,
};

const pascal = (type: string) => type.replace(/(^|[._])(\w)/g, (_, _sep: string, c: string) => c.toUpperCase());

export interface WebhookDef {
  type: EventType;
  /** `TransactionPaid`: names the operation and the payload's schema. */
  name: string;
  schema: z.ZodType;
}

export function webhookDefs(): WebhookDef[] {
  return EVENT_TYPES.map((type) => {
    const family = familyOf(type);
    const schema = z
      .object({
        id: z.uuid().describe('The event (also the `webhook-id` header): the same on every retry, to drop duplicates'),
        type: z.literal(type).describe('What happened'),
        created: dateTime.describe('When it happened (ISO 8601, UTC)'),
        livemode,
        // The object's own component, by reference (a description here would copy it inline).
        data: DATA[family],
      })
      .meta({ id: `${pascal(type)}Event`, description: `The body of a \`${type}\` delivery` });
    return { type, name: pascal(type), schema };
  });
}
