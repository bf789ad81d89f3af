import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ZodError } from 'zod';
import { buildPayoutFile, type FilePayout, type PayoutFileRequest, payoutRefusal, SepaFileError } from '../../server/domain/sepa/pain001';
import { centsToText, isSepaId, SEPA_TEXT, sepaIdOf, sepaText, textToUnits, uuidOfSepaId } from '../../server/domain/sepa/text';
import { at, childrenOf, readXml, textAt } from '../../server/domain/sepa/xml';
import { xsdErrorsOf } from './sepa-xsd';

// pain.001 credit-transfer files (server/domain/sepa/pain001.ts): valid against the
// vendored ISO 20022 schemas of both versions and the EPC's SEPA variant of .09, with exact
// sums, ids of at most 35 characters, text in the SEPA character set, and a refusal for
// anything a bank would refuse.

const DEBTOR = { name: 'Plataforma de Pagos S.L.', iban: 'ES9121000418450200051332', bic: 'CAIXESBBXXX' };
const uuid = (n: number) => `0195541a-0000-7000-8000-${String(n).padStart(12, '0')}`;

function payout(n: number, over: Partial<FilePayout> = {}): FilePayout {
  return { id: uuid(n), amount: 939 + n, currency: 'EUR', debtor: DEBTOR, creditor: { name: `Creditor ${n}`, iban: 'DE89370400440532013000' }, remittance: `Payout ${n}`, ...over };
}

function request(payouts: FilePayout[], over: Partial<PayoutFileRequest> = {}): PayoutFileRequest {
  return { fileId: '0195541a-7c2e-7b1a-9c3d-1234567890ab', createdAt: new Date('2026-03-03T10:00:01.204Z'), initiatingParty: 'Plataforma de Pagos', executionDate: '2026-03-04', payouts, ...over };
}

const sample = () => [
  payout(1, { creditor: { name: 'José Müller & Søn «Ltd»', iban: 'DE89370400440532013000' } }),
  payout(2, { amount: 12_345_678n, creditor: { name: 'Zoë Ærø <b>', iban: 'FR1420041010050500013M02606', bic: 'BNPAFRPPXXX' }, remittance: 'Straße 5; "Lohn" — März' }),
  payout(3, { amount: 1, creditor: { name: 'Ana', iban: 'ES7921000813610123456789' }, remittance: undefined }),
];

describe('pain.001 files against the vendored XSDs', () => {
  // The files of these tests, and broken ones, each schema run once over all of them.
  const noBic = [payout(4, { debtor: { ...DEBTOR, bic: undefined } })];
  const v09 = buildPayoutFile(request(sample())).xml;
  const docs = {
    sample09: v09,
    sample03: buildPayoutFile(request(sample(), { version: 'pain.001.001.03' })).xml,
    noBic09: buildPayoutFile(request(noBic)).xml,
    noBic03: buildPayoutFile(request(noBic, { version: 'pain.001.001.03' })).xml,
    bookingNo: v09.replace('<BtchBookg>false', '<BtchBookg>no'),
    longEndToEnd: v09.replace(/<EndToEndId>(\w+)/, '<EndToEndId>$1xxxx'),
    // The EPC variant is stricter than ISO's: the charge bearer is SLEV only. (Neither checks
    // the character set of names: the property test below does.)
    shared: v09.replace('<ChrgBr>SLEV', '<ChrgBr>SHAR'),
  };

  it('pain.001.001.09 validates against its ISO 20022 schema, which refuses broken files', async () => {
    const errors = await xsdErrorsOf(docs, 'pain.001.001.09');
    expect(v09).toContain('urn:iso:std:iso:20022:tech:xsd:pain.001.001.09');
    expect([errors.sample09, errors.noBic09, errors.shared]).toEqual([[], [], []]);
    expect(errors.bookingNo).not.toEqual([]);
    expect(errors.longEndToEnd).not.toEqual([]);
    expect(errors.sample03).not.toEqual([]);
  });

  it('pain.001.001.03 validates against its ISO 20022 schema', async () => {
    const errors = await xsdErrorsOf({ sample03: docs.sample03, noBic03: docs.noBic03, sample09: v09 }, 'pain.001.001.03');
    expect(docs.sample03).toContain('urn:iso:std:iso:20022:tech:xsd:pain.001.001.03');
    expect([errors.sample03, errors.noBic03]).toEqual([[], []]);
    expect(errors.sample09).not.toEqual([]);
  });

  it('pain.001.001.09 validates against the EPC SEPA variant (EPC132-08, 2023), with and without BICs', async () => {
    const errors = await xsdErrorsOf({ sample09: v09, noBic09: docs.noBic09, shared: docs.shared }, 'pain.001.001.09 EPC');
    expect([errors.sample09, errors.noBic09]).toEqual([[], []]);
    expect(errors.shared).not.toEqual([]);
  });
});

/** Any text: every code point (lone surrogates too), with the letters and marks transliteration knows more often. */
const anyText = fc.string({
  unit: fc.oneof(fc.constantFrom(...'éüßÆøŒłĐÞ&"«»–—_;!@#<>\t\n日本\u0301'), fc.integer({ min: 0, max: 0x10ffff }).map((c) => String.fromCodePoint(c))),
  maxLength: 200,
});

describe('what a file says', () => {
  it('one batch per debtor account, BtchBookg=false, EUR, SEPA service level, NbOfTxs and CtrlSum right', () => {
    const other = { name: 'Plataforma Dos', iban: 'ES7921000813610123456789' };
    const file = buildPayoutFile(request([...sample(), payout(5, { debtor: other, amount: 500 })]));
    const doc = at(readXml(file.xml), 'CstmrCdtTrfInitn')!;
    const batches = childrenOf(doc, 'PmtInf');
    expect(batches.map((b) => textAt(b, 'DbtrAcct', 'Id', 'IBAN'))).toEqual([DEBTOR.iban, other.iban]);
    expect(batches.map((b) => textAt(b, 'PmtInfId'))).toEqual([`${file.messageId}-1`, `${file.messageId}-2`]);
    expect(batches.map((b) => textAt(b, 'BtchBookg'))).toEqual(['false', 'false']);
    expect(batches.map((b) => textAt(b, 'PmtTpInf', 'SvcLvl', 'Cd'))).toEqual(['SEPA', 'SEPA']);
    expect(batches.map((b) => [textAt(b, 'NbOfTxs'), textAt(b, 'CtrlSum')])).toEqual([['3', '123466.19'], ['1', '5.00']]);
    expect([textAt(doc, 'GrpHdr', 'NbOfTxs'), textAt(doc, 'GrpHdr', 'CtrlSum')]).toEqual(['4', '123471.19']);
    expect(textAt(doc, 'GrpHdr', 'CreDtTm')).toBe('2026-03-03T10:00:01Z');
    const amounts = batches.flatMap((b) => childrenOf(b, 'CdtTrfTxInf')).map((t) => at(t, 'Amt', 'InstdAmt')!);
    expect(amounts.map((a) => [a.attrs.Ccy, a.text])).toEqual([['EUR', '9.40'], ['EUR', '123456.78'], ['EUR', '0.01'], ['EUR', '5.00']]);
    expect(file.controlSum).toBe(12_347_119n);
  });

  it('CtrlSum is the exact sum of the amounts, whatever they are (against an independent model)', () => {
    const cents = fc.bigInt({ min: 1n, max: 99_999_999_999n });
    fc.assert(
      fc.property(fc.array(cents, { minLength: 1, maxLength: 30 }), (amounts) => {
        const file = buildPayoutFile(request(amounts.map((amount, i) => payout(i, { amount }))));
        const doc = at(readXml(file.xml), 'CstmrCdtTrfInitn');
        const written = childrenOf(at(doc, 'PmtInf'), 'CdtTrfTxInf').map((t) => textAt(t, 'Amt', 'InstdAmt')!);
        // The model: decimal text summed digit-wise through BigInt of the text without its point.
        const model = written.reduce((sum, text) => sum + BigInt(text.replace('.', '')), 0n);
        expect(written.every((t) => /^\d+\.\d\d$/.test(t))).toBe(true);
        expect(textAt(doc, 'GrpHdr', 'CtrlSum')!.replace('.', '')).toBe(String(model).padStart(3, '0'));
        expect(model).toBe(amounts.reduce((a, b) => a + b, 0n));
        expect(textAt(doc, 'GrpHdr', 'NbOfTxs')).toBe(String(amounts.length));
      }),
      { numRuns: 100 },
    );
  });

  it('MsgId, PmtInfId and EndToEndId: unique, at most 35 characters, and an EndToEndId gives its payout back', () => {
    const file = buildPayoutFile(request(sample()));
    const ids = [file.messageId, ...file.batches.flatMap((b) => [b.paymentInfoId, ...b.payouts.map((p) => p.endToEndId)])];
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids.every(isSepaId)).toBe(true);
    expect(file.batches[0]!.payouts.map((p) => uuidOfSepaId(p.endToEndId))).toEqual([uuid(1), uuid(2), uuid(3)]);
    fc.assert(fc.property(fc.uuid(), fc.uuid(), (a, b) => {
      expect(sepaIdOf(a)).toHaveLength(32);
      expect(uuidOfSepaId(sepaIdOf(a))).toBe(a.toLowerCase());
      expect(sepaIdOf(a) === sepaIdOf(b)).toBe(a.toLowerCase() === b.toLowerCase());
    }));
  });

  it('text is transliterated into the SEPA character set and names are kept readable', () => {
    const file = buildPayoutFile(request(sample()));
    const names = [...file.xml.matchAll(/<Nm>([^<]*)<\/Nm>/g)].map((m) => m[1]);
    expect(names).toEqual(['Plataforma de Pagos', 'Plataforma de Pagos S.L.', "Jose Muller + Son 'Ltd'", 'Zoe AEro b', 'Ana']);
    expect(file.xml).toContain("<Ustrd>Strasse 5, 'Lohn' - Marz</Ustrd>");
    fc.assert(fc.property(anyText, fc.integer({ min: 1, max: 140 }), (s, max) => {
      const out = sepaText(s, max);
      expect(out).toMatch(SEPA_TEXT);
      expect(out.length).toBeLessThanOrEqual(max);
      expect(out).toBe(out.trim());
    }));
    // Compatibility forms too: a ligature, full-width letters.
    expect(sepaText('Søn ﬁne ＡＢＣ', 70)).toBe('Son fine ABC');
  });

  it('amounts are exact both ways: cents to text and text to cents', () => {
    expect([1n, 10n, 939n, 99_999_999_999n].map(centsToText)).toEqual(['0.01', '0.10', '9.39', '999999999.99']);
    expect(['9.39', '12.5', '7', '0.10', '123456789012.34'].map((t) => textToUnits(t, 2))).toEqual([939n, 1250n, 700n, 10n, 12_345_678_901_234n]);
    expect(['1.234', '-1.00', '1e3', '', '1,00', ' '].map((t) => textToUnits(t, 2))).toEqual([null, null, null, null, null, null]);
    fc.assert(fc.property(fc.bigInt({ min: 0n, max: 10n ** 17n }), (c) => {
      expect(textToUnits(centsToText(c), 2)).toBe(c);
    }));
  });
});

describe('refusals', () => {
  const refusal = (over: Partial<FilePayout>) => payoutRefusal(payout(7, over));

  it('another currency than EUR is refused with a clear error, and the whole file with it', () => {
    expect(refusal({ currency: 'USD' })).toEqual({ payoutId: uuid(7), code: 'currency', message: 'a SEPA credit transfer pays euros only, not USD' });
    const build = () => buildPayoutFile(request([payout(1), payout(7, { currency: 'GBP' })]));
    expect(build).toThrow(SepaFileError);
    expect(build).toThrow(`payout ${uuid(7)}: a SEPA credit transfer pays euros only, not GBP`);
  });

  it('a bad IBAN (mod-97, length, country, format) or BIC, on either side, is refused', () => {
    const creditor = (iban: string, bic?: string) => refusal({ creditor: { name: 'Ana', iban, bic } })?.code;
    expect(creditor('ES9121000418450200051333')).toBe('creditor_iban');
    expect(creditor('ES91210004184502000513')).toBe('creditor_iban');
    expect(creditor('XX9121000418450200051332')).toBe('creditor_iban');
    expect(creditor('es9121000418450200051332')).toBe('creditor_iban');
    expect(creditor('DE89370400440532013000', 'NOTABIC!')).toBe('creditor_bic');
    expect(refusal({ debtor: { ...DEBTOR, iban: 'ES9121000418450200051333' } })?.code).toBe('debtor_iban');
    expect(refusal({ debtor: { ...DEBTOR, bic: 'CAIX' } })?.code).toBe('debtor_bic');
    expect(creditor('DE89370400440532013000', 'DEUTDEFF')).toBeUndefined();
  });

  it("an IBAN valid but of a country outside the SEPA scheme is refused; the scheme's countries outside the EEA are not", () => {
    const creditor = (iban: string) => refusal({ creditor: { name: 'Ana', iban } });
    expect(creditor('TR330006100519786457841326')).toMatchObject({ code: 'creditor_iban', message: expect.stringContaining('of TR, a country outside the SEPA scheme') });
    expect(creditor('BR1800360305000010009795493C1')?.code).toBe('creditor_iban');
    expect(creditor('CH9300762011623852957')).toBeNull();
    expect(creditor('GB29NWBK60161331926819')).toBeNull();
  });

  it('the creditor name is mandatory, also when nothing of it is in the SEPA set', () => {
    expect(refusal({ creditor: { name: '  ', iban: 'DE89370400440532013000' } })?.code).toBe('creditor_name');
    expect(refusal({ creditor: { name: '日本', iban: 'DE89370400440532013000' } })?.code).toBe('creditor_name');
    expect(refusal({ debtor: { ...DEBTOR, name: '' } })?.code).toBe('debtor_name');
  });

  it('amounts out of the SEPA range, a payout twice, malformed requests', () => {
    expect(refusal({ amount: 0 })?.code).toBe('amount');
    expect(refusal({ amount: 100_000_000_000n })?.code).toBe('amount');
    expect(() => buildPayoutFile(request([payout(1), payout(1)]))).toThrow('the payout is twice in the file');
    expect(() => buildPayoutFile(request([payout(1, { amount: 9.39 })]))).toThrow(ZodError);
    expect(() => buildPayoutFile(request([]))).toThrow(ZodError);
    expect(() => buildPayoutFile(request([payout(1)], { executionDate: '04/03/2026' }))).toThrow(ZodError);
  });

  it('ids longer than 35 characters never reach a file: a UUID is shortened, anything else refused', () => {
    expect(isSepaId('a'.repeat(35))).toBe(true);
    expect(isSepaId('a'.repeat(36))).toBe(false);
    expect(isSepaId('/abc')).toBe(false);
    expect(isSepaId('a//b')).toBe(false);
    expect(isSepaId('ab_c')).toBe(false);
    expect(() => sepaIdOf('0195541a-7c2e-7b1a-9c3d-1234567890ab-1')).toThrow(RangeError);
    expect(() => buildPayoutFile(request([payout(1)], { fileId: 'payout-file-of-the-third-of-march-2026' }))).toThrow(ZodError);
    expect(() => buildPayoutFile(request([payout(1, { id: 'merchant-payout-0195541a-7c2e-7b1a-9c3d' })]))).toThrow(ZodError);
  });
});
