import { TEST_CARDS } from '../domain/test-cards';

// A live environment moves real money: a published test card means a test set-up is
// pointed at it by mistake. They are refused before any gateway sees them, on every path
// a card number arrives by (the payment page, the sign-up page, the API).

const TEST_NUMBERS = new Set<string>(Object.values(TEST_CARDS).map((n) => n.replace(/\D/g, '')));

/** The field errors of a live environment's card fields: the card number, when it is a test card. */
export function testCardErrors(live: boolean, fields: Readonly<Record<string, string | undefined>>): Record<string, 'error.card.testInLive'> {
  const number = fields.card_number?.replace(/\D/g, '');
  return live && number !== undefined && TEST_NUMBERS.has(number) ? { card_number: 'error.card.testInLive' } : {};
}
