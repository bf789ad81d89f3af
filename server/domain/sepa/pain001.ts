import { z } from 'zod';
import { centsToText, inSepaScheme, isBic, isIban, SEPA_CURRENCY, SEPA_MAX_CENTS, SEPA_MIN_CENTS, sepaIdOf, sepaText } from './text';
import { type XmlNode, writeXml } from './xml';

// SEPA credit-transfer files, ISO 20022 pain.001 (docs/balance.md#payout-files): what the
// platform uploads to its bank to pay payouts out. Version pain.001.001.09 (the EPC's SCT
// guidelines since November 2023, the default) or pain.001.001.03 (what many banks still
// take). Built here rather than with the `sepa` package: it takes amounts as JavaScript
// numbers and sums the control sum in floating point, and checks the character set with a
// pattern that accepts any text holding one valid character; ours works in integer cents,
// transliterates every text into the set, and refuses what a bank would refuse before the
// file exists.
//
// One file: one group header, one batch (PmtInf) per debtor account, one transaction per
// payout. Ids (each at most 35 characters, docs/balance.md#ids-in-a-file):
// - MsgId: the file's UUID without hyphens (32 characters);
// - PmtInfId: the MsgId, "-", the batch's number in the file (at most 35);
// - EndToEndId: the payout's UUID without hyphens, which the bank hands back on the
//   statement, so a statement line names its payout.
// BtchBookg is false: the bank books each transfer on its own, so the statement shows each
// EndToEndId (a bank that books the batch anyway is matched by PmtInfId and total).

export const PAIN_VERSIONS = ['pain.001.001.09', 'pain.001.001.03'] as const;
export type PainVersion = (typeof PAIN_VERSIONS)[number];

const Party = z.object({
  name: z.string(),
  /** Electronic format: upper case, no spaces. */
  iban: z.string(),
  bic: z.string().optional(),
});
export type SepaParty = z.infer<typeof Party>;

const Payout = z.object({
  /** Our UUID of the payout (a merchant payout or a wallet's transfer to an IBAN). */
  id: z.uuid(),
  /** Minor units. */
  amount: z.union([z.bigint(), z.number().int()]).transform((n) => BigInt(n)),
  currency: z.string(),
  debtor: Party,
  creditor: Party,
  remittance: z.string().optional(),
});
export type FilePayout = z.input<typeof Payout>;

/** Names up to 70 characters, remittance text up to 140 (the EPC's limits). */
const NAME_MAX = 70;
const REMITTANCE_MAX = 140;

const PayoutFileInput = z.object({
  version: z.enum(PAIN_VERSIONS).default('pain.001.001.09'),
  /** Our UUID of the file: its MsgId. */
  fileId: z.uuid(),
  createdAt: z.date(),
  /** Who sends the file: the platform. */
  initiatingParty: z.string().refine((name) => sepaText(name, NAME_MAX) !== '', 'has nothing left in the SEPA character set'),
  /** The day the bank is asked to pay, YYYY-MM-DD. */
  executionDate: z.iso.date(),
  payouts: z.array(Payout).min(1),
});
export type PayoutFileRequest = z.input<typeof PayoutFileInput>;

/** Why a payout cannot go in a file; the payout stays out of it, and its owner is told why. */
export type SepaRefusalCode = 'currency' | 'amount' | 'duplicate' | 'creditor_name' | 'creditor_iban' | 'creditor_bic' | 'debtor_name' | 'debtor_iban' | 'debtor_bic';

export interface SepaRefusal {
  payoutId: string;
  code: SepaRefusalCode;
  message: string;
}

export class SepaFileError extends Error {
  constructor(readonly refusals: readonly SepaRefusal[]) {
    super(refusals.map((r) => `payout ${r.payoutId}: ${r.message}`).join('; '));
  }
}

function partyRefusal(p: SepaParty, side: 'creditor' | 'debtor'): Omit<SepaRefusal, 'payoutId'> | null {
  if (!sepaText(p.name, NAME_MAX)) return { code: `${side}_name`, message: `the ${side}'s name is missing (banks check it against the account)` };
  if (!isIban(p.iban)) return { code: `${side}_iban`, message: `the ${side}'s IBAN is not valid (country, length, format or mod-97 check digits)` };
  if (!inSepaScheme(p.iban)) return { code: `${side}_iban`, message: `the ${side}'s IBAN is of ${p.iban.slice(0, 2)}, a country outside the SEPA scheme: a SEPA credit transfer cannot reach it` };
  if (p.bic !== undefined && !isBic(p.bic)) return { code: `${side}_bic`, message: `the ${side}'s BIC is not valid` };
  return null;
}

/**
 * Why `payout` cannot be paid by a SEPA credit transfer, or null when it can. Checked in
 * this order; the wiring runs it before choosing a file's payouts.
 */
export function payoutRefusal(payout: FilePayout): SepaRefusal | null {
  const p = Payout.parse(payout);
  const refusal = ((): Omit<SepaRefusal, 'payoutId'> | null => {
    if (p.currency !== SEPA_CURRENCY) return { code: 'currency', message: `a SEPA credit transfer pays euros only, not ${p.currency}` };
    if (p.amount < SEPA_MIN_CENTS || p.amount > SEPA_MAX_CENTS) return { code: 'amount', message: 'the amount must be from 0.01 to 999999999.99 EUR' };
    return partyRefusal(p.creditor, 'creditor') ?? partyRefusal(p.debtor, 'debtor');
  })();
  return refusal && { payoutId: p.id, ...refusal };
}

type ParsedPayout = z.output<typeof Payout>;

export interface FileBatch {
  paymentInfoId: string;
  debtor: SepaParty;
  count: number;
  /** Cents. */
  controlSum: bigint;
  payouts: { id: string; endToEndId: string; amount: bigint }[];
}

export interface PayoutFile {
  version: PainVersion;
  messageId: string;
  count: number;
  /** Cents. */
  controlSum: bigint;
  batches: FileBatch[];
  xml: string;
}

/** At most 99 batches, so that MsgId-NN stays within 35 characters. */
const MAX_BATCHES = 99;

/** The payouts in batches, one per debtor IBAN, in the order each debtor first appears. */
function batchesOf(messageId: string, payouts: ParsedPayout[]): (FileBatch & { items: ParsedPayout[] })[] {
  const byDebtor = new Map<string, ParsedPayout[]>();
  for (const p of payouts) byDebtor.set(p.debtor.iban, [...(byDebtor.get(p.debtor.iban) ?? []), p]);
  if (byDebtor.size > MAX_BATCHES) throw new RangeError(`a file holds at most ${MAX_BATCHES} debtor accounts`);
  return [...byDebtor.values()].map((items, i) => ({
    paymentInfoId: `${messageId}-${i + 1}`,
    debtor: items[0]!.debtor,
    count: items.length,
    controlSum: items.reduce((sum, p) => sum + p.amount, 0n),
    payouts: items.map((p) => ({ id: p.id, endToEndId: sepaIdOf(p.id), amount: p.amount })),
    items,
  }));
}

/**
 * The pain.001 file of `request`'s payouts. Throws SepaFileError listing every payout that
 * cannot be paid this way (payoutRefusal), and a ZodError for a malformed request.
 */
export function buildPayoutFile(request: PayoutFileRequest): PayoutFile {
  const input = PayoutFileInput.parse(request);
  const refusals = input.payouts.map(payoutRefusal).filter((r): r is SepaRefusal => r !== null);
  const ids = new Set<string>();
  for (const p of input.payouts) {
    if (ids.has(p.id)) refusals.push({ payoutId: p.id, code: 'duplicate', message: 'the payout is twice in the file' });
    ids.add(p.id);
  }
  if (refusals.length) throw new SepaFileError(refusals);
  const messageId = sepaIdOf(input.fileId);
  const batches = batchesOf(messageId, input.payouts);
  const count = input.payouts.length;
  const controlSum = batches.reduce((sum, b) => sum + b.controlSum, 0n);
  const root = documentNode(input, messageId, count, controlSum, batches);
  return {
    version: input.version,
    messageId,
    count,
    controlSum,
    batches: batches.map(({ items: _items, ...b }) => b),
    xml: writeXml(root),
  };
}

type Input = z.output<typeof PayoutFileInput>;

function documentNode(input: Input, messageId: string, count: number, controlSum: bigint, batches: (FileBatch & { items: ParsedPayout[] })[]): XmlNode {
  // Seconds, no fraction, UTC: the form every version's ISODateTime and every bank accepts.
  const created = input.createdAt.toISOString().replace(/\.\d{3}Z$/, 'Z');
  const header: XmlNode = {
    name: 'GrpHdr',
    body: [
      { name: 'MsgId', body: messageId },
      { name: 'CreDtTm', body: created },
      { name: 'NbOfTxs', body: String(count) },
      { name: 'CtrlSum', body: centsToText(controlSum) },
      { name: 'InitgPty', body: [{ name: 'Nm', body: sepaText(input.initiatingParty, NAME_MAX) }] },
    ],
  };
  return {
    name: 'Document',
    attrs: { xmlns: `urn:iso:std:iso:20022:tech:xsd:${input.version}` },
    body: [{ name: 'CstmrCdtTrfInitn', body: [header, ...batches.map((b) => batchNode(input, b))] }],
  };
}

/** The agent of an account: its BIC, or (debtor side, without one) the EPC's NOTPROVIDED. */
function agentNode(name: 'DbtrAgt' | 'CdtrAgt', version: PainVersion, bic: string | undefined): XmlNode | null {
  if (bic) return { name, body: [{ name: 'FinInstnId', body: [{ name: version === 'pain.001.001.09' ? 'BICFI' : 'BIC', body: bic }] }] };
  if (name === 'CdtrAgt') return null;
  return { name, body: [{ name: 'FinInstnId', body: [{ name: 'Othr', body: [{ name: 'Id', body: 'NOTPROVIDED' }] }] }] };
}

function batchNode(input: Input, b: FileBatch & { items: ParsedPayout[] }): XmlNode {
  const v = input.version;
  return {
    name: 'PmtInf',
    body: [
      { name: 'PmtInfId', body: b.paymentInfoId },
      { name: 'PmtMtd', body: 'TRF' },
      { name: 'BtchBookg', body: 'false' },
      { name: 'NbOfTxs', body: String(b.count) },
      { name: 'CtrlSum', body: centsToText(b.controlSum) },
      { name: 'PmtTpInf', body: [{ name: 'SvcLvl', body: [{ name: 'Cd', body: 'SEPA' }] }] },
      { name: 'ReqdExctnDt', body: v === 'pain.001.001.09' ? [{ name: 'Dt', body: input.executionDate }] : input.executionDate },
      { name: 'Dbtr', body: [{ name: 'Nm', body: sepaText(b.debtor.name, NAME_MAX) }] },
      { name: 'DbtrAcct', body: [{ name: 'Id', body: [{ name: 'IBAN', body: b.debtor.iban }] }] },
      agentNode('DbtrAgt', v, b.debtor.bic),
      { name: 'ChrgBr', body: 'SLEV' },
      ...b.items.map((p) => transactionNode(v, p)),
    ],
  };
}

function transactionNode(version: PainVersion, p: ParsedPayout): XmlNode {
  const remittance = p.remittance === undefined ? '' : sepaText(p.remittance, REMITTANCE_MAX);
  return {
    name: 'CdtTrfTxInf',
    body: [
      { name: 'PmtId', body: [{ name: 'EndToEndId', body: sepaIdOf(p.id) }] },
      { name: 'Amt', body: [{ name: 'InstdAmt', attrs: { Ccy: SEPA_CURRENCY }, body: centsToText(p.amount) }] },
      agentNode('CdtrAgt', version, p.creditor.bic),
      { name: 'Cdtr', body: [{ name: 'Nm', body: sepaText(p.creditor.name, NAME_MAX) }] },
      { name: 'CdtrAcct', body: [{ name: 'Id', body: [{ name: 'IBAN', body: p.creditor.iban }] }] },
      remittance ? { name: 'RmtInf', body: [{ name: 'Ustrd', body: remittance }] } : null,
    ],
  };
}
