import { describe, expect, it } from 'vitest';
import { parseStatement, reportKey } from '../../server/domain/sepa/camt';
import { buildPayoutFile } from '../../server/domain/sepa/pain001';
import { parseStatusReport } from '../../server/domain/sepa/pain002';
import { readXml, XML_MAX_BYTES, XmlRefused } from '../../server/domain/sepa/xml';
import { linesPerBatch, linesPerTransfer, statementXml, statusReportXml } from './sepa-bank';
import { xsdErrorsOf } from './sepa-xsd';

// Reading what banks send (server/domain/sepa/camt.ts, pain002.ts, xml.ts): camt.053 and
// camt.054 in .001.02 and .001.08, pain.002 in .001.03 and .001.10, amounts in exact minor
// units, and every XML attack refused before anything is read.

const ACCOUNT = 'ES9121000418450200051332';
const DEBTOR = { name: 'Plataforma', iban: ACCOUNT, bic: 'CAIXESBBXXX' };
const file = buildPayoutFile({
  fileId: '0195541a-7c2e-7b1a-9c3d-1234567890ab',
  createdAt: new Date('2026-03-03T10:00:00Z'),
  initiatingParty: 'Plataforma',
  executionDate: '2026-03-04',
  payouts: [1, 2].map((n) => ({ id: `0195541a-0000-7000-8000-00000000000${n}`, amount: 1000n * BigInt(n) + 5n, currency: 'EUR', debtor: DEBTOR, creditor: { name: `C ${n}`, iban: 'DE89370400440532013000' } })),
});
const [e2e1, e2e2] = file.batches[0]!.payouts.map((p) => p.endToEndId);

describe('camt statements', () => {
  it.each(['02', '08'] as const)('the test statements (camt.053.001.%s) are valid against the vendored XSD', async (version) => {
    const lines = [...linesPerTransfer(file), ...linesPerBatch(file), { direction: 'CRDT' as const, amount: 1005n, transactions: [{ endToEndId: e2e1, amount: 1005n, returnReason: 'AC04' }] }];
    const xml = statementXml({ version, iban: ACCOUNT, lines });
    // …and the schema does refuse one that is not (the check can fail).
    const errors = await xsdErrorsOf({ valid: xml, broken: xml.replace('<CdtDbtInd>DBIT', '<CdtDbtInd>DEBIT') }, `camt.053.001.${version}`);
    expect(errors.valid).toEqual([]);
    expect(errors.broken).not.toEqual([]);
  });

  it.each([
    ['camt.053', '02'],
    ['camt.053', '08'],
    ['camt.054', '02'],
    ['camt.054', '08'],
  ] as const)('%s.001.%s: entries with EndToEndId, PmtInfId, amounts in cents, status, batch and return reason', (kind, version) => {
    const lines = [
      ...linesPerTransfer(file),
      ...linesPerBatch(file),
      { direction: 'CRDT' as const, amount: 1005n, transactions: [{ endToEndId: e2e1, amount: 1005n, returnReason: 'AC04' }] },
      { direction: 'CRDT' as const, amount: 250n, status: 'PDNG' as const, subFamily: 'ESCT', transactions: [] },
    ];
    const s = parseStatement(statementXml({ kind, version, iban: ACCOUNT, lines }));
    expect(s).toMatchObject({ kind, version, messageId: 'STMT-MSG-1' });
    const [report] = s.reports;
    expect(report).toMatchObject({ id: 'STMT-2026-03-04', iban: ACCOUNT, currency: 'EUR' });
    expect(report!.entries.map((e) => [e.direction, e.amount, e.currency, e.status, e.reference])).toEqual([
      ['DBIT', 1005n, 'EUR', 'BOOK', 'BANKREF1'],
      ['DBIT', 2005n, 'EUR', 'BOOK', 'BANKREF2'],
      ['DBIT', 3010n, 'EUR', 'BOOK', 'BANKREF3'],
      ['CRDT', 1005n, 'EUR', 'BOOK', 'BANKREF4'],
      ['CRDT', 250n, 'EUR', 'PDNG', 'BANKREF5'],
    ]);
    expect(report!.entries[0]!.transactions).toEqual([{ endToEndId: e2e1, paymentInfoId: `${file.messageId}-1`, messageId: file.messageId, amount: 1005n }]);
    expect(report!.entries[2]!.batch).toEqual({ messageId: file.messageId, paymentInfoId: `${file.messageId}-1`, count: 2, total: 3010n });
    expect(report!.entries[3]).toMatchObject({ bankTransactionCode: 'PMNT/ICDT/RRTN', transactions: [{ endToEndId: e2e1, returnReason: 'AC04' }] });
    expect(reportKey(kind, report!)).toBe(`${kind}:${ACCOUNT}:STMT-2026-03-04`);
  });

  it('amounts are read exactly, in the currency of the entry', () => {
    const xml = statementXml({ iban: ACCOUNT, lines: [{ direction: 'DBIT', amount: 99_999_999_999n, transactions: [] }] });
    expect(parseStatement(xml).reports[0]!.entries[0]!.amount).toBe(99_999_999_999n);
    expect(parseStatement(xml.replace('999999999.99', '12.5')).reports[0]!.entries[0]!.amount).toBe(1250n);
    expect(() => parseStatement(xml.replace('999999999.99', '12.505'))).toThrow('is not an amount in EUR');
    expect(() => parseStatement(xml.replace('999999999.99', '1e3'))).toThrow('is not an amount in EUR');
    const yen = statementXml({ iban: ACCOUNT, currency: 'JPY', lines: [{ direction: 'DBIT', amount: 500n, currency: 'JPY', transactions: [] }] }).replace('5.00', '500');
    expect(parseStatement(yen).reports[0]!.entries[0]).toMatchObject({ amount: 500n, currency: 'JPY' });
  });

  it('refuses another message, an entry without a direction, a report without an account', () => {
    const xml = statementXml({ iban: ACCOUNT, lines: linesPerTransfer(file) });
    expect(() => parseStatement(xml.replace(/camt\.053\.001\.08/, 'camt.053.001.04'))).toThrow('not a camt.053 or camt.054 message');
    expect(() => parseStatement(xml.replace('<CdtDbtInd>DBIT</CdtDbtInd>', ''))).toThrow(/entry 1: direction/);
    expect(() => parseStatement(xml.replace(`<IBAN>${ACCOUNT}</IBAN>`, '<Othr><Id>123</Id></Othr>'))).toThrow('no Id or no account IBAN');
    expect(() => parseStatement(buildPayoutFile({ ...sampleRequest() }).xml)).toThrow(XmlRefused);
  });
});

function sampleRequest() {
  return { fileId: '0195541a-7c2e-7b1a-9c3d-1234567890ab', createdAt: new Date(), initiatingParty: 'P', executionDate: '2026-03-04', payouts: [{ id: '0195541a-0000-7000-8000-000000000001', amount: 1, currency: 'EUR', debtor: DEBTOR, creditor: DEBTOR }] };
}

describe('pain.002 status reports', () => {
  it.each(['03', '10'] as const)('pain.002.001.%s: the file, its batches and transactions with status and reason', (version) => {
    const xml = statusReportXml({
      version,
      originalMessageId: file.messageId,
      groupStatus: 'PART',
      batches: [{ paymentInfoId: `${file.messageId}-1`, transactions: [{ endToEndId: e2e2!, status: 'RJCT', reason: 'AC01' }] }],
    });
    expect(parseStatusReport(xml)).toEqual({
      messageId: 'STS-1',
      originalMessageId: file.messageId,
      groupStatus: 'PART',
      batches: [{ paymentInfoId: `${file.messageId}-1`, transactions: [{ endToEndId: e2e2, status: 'RJCT', reason: 'AC01' }] }],
    });
  });

  it('refuses another message and an incomplete report', () => {
    expect(() => parseStatusReport(statementXml({ iban: ACCOUNT, lines: [] }))).toThrow('not a pain.002 status report');
    const xml = statusReportXml({ version: '10', originalMessageId: file.messageId, groupStatus: 'RJCT', batches: [] });
    expect(() => parseStatusReport(xml.replace(/<OrgnlMsgId>\w+<\/OrgnlMsgId>/, ''))).toThrow('originalMessageId');
  });
});

describe('XML attacks and limits', () => {
  const valid = statementXml({ iban: ACCOUNT, lines: linesPerTransfer(file) });
  const body = valid.replace(/^<\?xml[^>]*>\n/, '');

  it('billion laughs: a DOCTYPE declaring nested entities is refused before any expansion', () => {
    const levels = Array.from({ length: 9 }, (_, i) => `<!ENTITY lol${i + 1} "${`&lol${i};`.repeat(10)}">`).join('');
    const bomb = `<?xml version="1.0"?><!DOCTYPE Document [<!ENTITY lol0 "lol">${levels}]>${body.replace('STMT-MSG-1', '&lol9;')}`;
    const started = performance.now();
    expect(() => parseStatement(bomb)).toThrow(new XmlRefused('a DOCTYPE is not accepted (entities could expand or read other files)'));
    expect(performance.now() - started).toBeLessThan(1000);
  });

  it('XXE: an external entity that would read a file or call a URL is refused', () => {
    for (const system of ['file:///etc/passwd', 'http://169.254.169.254/latest/meta-data/']) {
      const xxe = `<?xml version="1.0"?><!DOCTYPE Document [<!ENTITY xxe SYSTEM "${system}">]>${body.replace('STMT-MSG-1', '&xxe;')}`;
      expect(() => parseStatement(xxe)).toThrow(XmlRefused);
    }
    // Lower case, or with the DOCTYPE hidden after a comment: still refused.
    expect(() => readXml(`<!-- x --><!doctype Document><Document/>`)).toThrow('DOCTYPE');
    expect(() => readXml('<Document><!ENTITY x "y"></Document>')).toThrow('ENTITY');
  });

  it('an entity that was never declared is an error, not a lookup', () => {
    expect(() => parseStatement(body.replace('STMT-MSG-1', '&xxe;'))).toThrow(/not well-formed XML/);
    expect(parseStatement(body.replace('STMT-MSG-1', 'A&amp;B&#x2D;1')).messageId).toBe('A&B-1');
  });

  it('the size cap, the encoding, well-formedness and depth', () => {
    expect(() => parseStatement(valid, 1000)).toThrow('the file is larger than 1000 bytes');
    expect(() => parseStatement(`${valid}<!--${' '.repeat(XML_MAX_BYTES)}-->`)).toThrow(`larger than ${XML_MAX_BYTES} bytes`);
    expect(() => parseStatement(new Uint8Array([0x3c, 0x61, 0xff, 0x3e]))).toThrow('not UTF-8');
    expect(() => parseStatement(valid.replace('encoding="UTF-8"', 'encoding="ISO-8859-1"'))).toThrow('the encoding must be UTF-8, not ISO-8859-1');
    expect(() => parseStatement(valid.replace('</Document>', ''))).toThrow(/not well-formed XML/);
    expect(() => readXml(`${'<a>'.repeat(50)}${'</a>'.repeat(50)}`)).toThrow('elements nest deeper than 40 levels');
    expect(parseStatement(new TextEncoder().encode(valid)).reports[0]!.entries).toHaveLength(2);
  });
});
