// Capture, refund and void as a table: each case starts from a fresh sale (held when the
// transaction was paid with authorize: true, captured otherwise), runs its steps and gives
// the answer and the amounts after each one, in minor units. The use-case tier runs every
// case (usecase/sale-actions.test.ts); the API tier runs those marked `route`
// (api/sales.test.ts).

/** Every sale is for 10 000 minor units: ¥10000, €100.00, 10.000 KWD. */
export const TOTAL = 10_000;

export type Action = 'capture' | 'refund' | 'void';
export interface Step {
  action: Action;
  /** Minor units; absent sends no body: "all that is possible". */
  amount?: number;
  /** The API's answer; the use case's is `done` for 200, `conflict` for 409. */
  status: 200 | 409;
  /** The amounts after the step (held, captured, refunded, voided) and the status. */
  after: [number, number, number, number, string];
}
export interface Case {
  name: string;
  authorize: boolean;
  /** Run through the routes too: between them, these reach each answer of capture, refund and void. */
  route?: true;
  steps: Step[];
}

export const CASES: Case[] = [
  { name: 'full capture of a held sale', authorize: true, steps: [{ action: 'capture', status: 200, after: [0, 10_000, 0, 0, 'captured'] }] },
  {
    name: 'partial captures, then the rest, then nothing is left',
    authorize: true,
    steps: [
      { action: 'capture', amount: 2_501, status: 200, after: [7_499, 2_501, 0, 0, 'partially_captured'] },
      { action: 'capture', amount: 2_499, status: 200, after: [5_000, 5_000, 0, 0, 'partially_captured'] },
      { action: 'capture', status: 200, after: [0, 10_000, 0, 0, 'captured'] },
      { action: 'capture', status: 409, after: [0, 10_000, 0, 0, 'captured'] },
      { action: 'capture', amount: 1, status: 409, after: [0, 10_000, 0, 0, 'captured'] },
    ],
  },
  {
    name: 'capture over the held amount',
    authorize: true,
    steps: [
      { action: 'capture', amount: 10_001, status: 409, after: [10_000, 0, 0, 0, 'held'] },
      { action: 'capture', amount: 6_000, status: 200, after: [4_000, 6_000, 0, 0, 'partially_captured'] },
      { action: 'capture', amount: 4_001, status: 409, after: [4_000, 6_000, 0, 0, 'partially_captured'] },
    ],
  },
  {
    name: 'full void, then nothing can be captured, voided or refunded',
    authorize: true,
    steps: [
      { action: 'void', status: 200, after: [0, 0, 0, 10_000, 'voided'] },
      { action: 'capture', status: 409, after: [0, 0, 0, 10_000, 'voided'] },
      { action: 'capture', amount: 1, status: 409, after: [0, 0, 0, 10_000, 'voided'] },
      { action: 'void', status: 409, after: [0, 0, 0, 10_000, 'voided'] },
      { action: 'refund', status: 409, after: [0, 0, 0, 10_000, 'voided'] },
    ],
  },
  {
    name: 'partial void, capture of the rest, over-void',
    authorize: true,
    route: true,
    steps: [
      { action: 'void', amount: 3_333, status: 200, after: [6_667, 0, 0, 3_333, 'held'] },
      { action: 'void', amount: 6_668, status: 409, after: [6_667, 0, 0, 3_333, 'held'] },
      { action: 'capture', status: 200, after: [0, 6_667, 0, 3_333, 'captured'] },
      { action: 'void', status: 409, after: [0, 6_667, 0, 3_333, 'captured'] },
      { action: 'refund', status: 200, after: [0, 6_667, 6_667, 3_333, 'refunded'] },
    ],
  },
  {
    name: 'refund of a held sale needs a capture first',
    authorize: true,
    route: true,
    steps: [
      { action: 'refund', status: 409, after: [10_000, 0, 0, 0, 'held'] },
      { action: 'refund', amount: 1, status: 409, after: [10_000, 0, 0, 0, 'held'] },
      { action: 'capture', amount: 4_000, status: 200, after: [6_000, 4_000, 0, 0, 'partially_captured'] },
      { action: 'refund', amount: 4_001, status: 409, after: [6_000, 4_000, 0, 0, 'partially_captured'] },
      { action: 'refund', status: 200, after: [6_000, 4_000, 4_000, 0, 'partially_captured'] },
      { action: 'void', status: 200, after: [0, 4_000, 4_000, 6_000, 'refunded'] },
    ],
  },
  {
    name: 'a captured sale cannot be captured or voided',
    authorize: false,
    steps: [
      { action: 'capture', status: 409, after: [0, 10_000, 0, 0, 'captured'] },
      { action: 'capture', amount: 1, status: 409, after: [0, 10_000, 0, 0, 'captured'] },
      { action: 'void', status: 409, after: [0, 10_000, 0, 0, 'captured'] },
      { action: 'void', amount: 1, status: 409, after: [0, 10_000, 0, 0, 'captured'] },
    ],
  },
  {
    name: 'full refund, then again',
    authorize: false,
    steps: [
      { action: 'refund', status: 200, after: [0, 10_000, 10_000, 0, 'refunded'] },
      { action: 'refund', status: 409, after: [0, 10_000, 10_000, 0, 'refunded'] },
      { action: 'refund', amount: 1, status: 409, after: [0, 10_000, 10_000, 0, 'refunded'] },
    ],
  },
  {
    name: 'repeated partial refunds up to the captured amount, and one unit more',
    authorize: false,
    steps: [
      { action: 'refund', amount: 1, status: 200, after: [0, 10_000, 1, 0, 'partially_refunded'] },
      { action: 'refund', amount: 4_999, status: 200, after: [0, 10_000, 5_000, 0, 'partially_refunded'] },
      { action: 'refund', amount: 5_001, status: 409, after: [0, 10_000, 5_000, 0, 'partially_refunded'] },
      { action: 'refund', amount: 5_000, status: 200, after: [0, 10_000, 10_000, 0, 'refunded'] },
      { action: 'refund', amount: 1, status: 409, after: [0, 10_000, 10_000, 0, 'refunded'] },
    ],
  },
  {
    name: 'refund over the captured amount',
    authorize: false,
    steps: [{ action: 'refund', amount: 10_001, status: 409, after: [0, 10_000, 0, 0, 'captured'] }],
  },
];
