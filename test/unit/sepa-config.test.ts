import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../server/config';
import { payoutsFromConfig } from '../../server/payments/configured';
import { payoutProviders, sandboxPayouts } from '../../server/payments/payout-gateway';

// PAYOUT_PROVIDER=sepa-file (docs/operations.md): the debtor account is checked at start with
// the rules the payout files are built with, PAYOUT_MODULE beside it stops the start, and
// the provider it makes serves live environments only, by file.

const SEPA = { PAYOUT_PROVIDER: 'sepa-file', SEPA_DEBTOR_NAME: 'Platform SL', SEPA_DEBTOR_IBAN: 'es91 2100 0418 4502 0005 1332' };

describe('PAYOUT_PROVIDER=sepa-file', () => {
  it('reads the debtor account in the electronic format, pain.001.001.09 by default', () => {
    expect(loadConfig(SEPA).sepa).toEqual({ name: 'Platform SL', iban: 'ES9121000418450200051332', bic: null, version: 'pain.001.001.09' });
    expect(loadConfig({ ...SEPA, SEPA_DEBTOR_BIC: 'caixesbbxxx', SEPA_PAIN_VERSION: 'pain.001.001.03' }).sepa).toMatchObject({ bic: 'CAIXESBBXXX', version: 'pain.001.001.03' });
    expect(loadConfig({}).sepa).toBeNull();
  });

  it('stops the start, saying why, on PAYOUT_MODULE beside it or a debtor the files would refuse', () => {
    expect(() => loadConfig({ ...SEPA, PAYOUT_MODULE: './bank.js' })).toThrow(/PAYOUT_PROVIDER: sepa-file and PAYOUT_MODULE both name the payout provider/);
    expect(() => loadConfig({ ...SEPA, SEPA_DEBTOR_NAME: undefined })).toThrow(/SEPA_DEBTOR_NAME: is required with PAYOUT_PROVIDER=sepa-file/);
    expect(() => loadConfig({ ...SEPA, SEPA_DEBTOR_NAME: '@@@' })).toThrow(/SEPA_DEBTOR_NAME/);
    expect(() => loadConfig({ ...SEPA, SEPA_DEBTOR_IBAN: 'ES9121000418450200051333' })).toThrow(/SEPA_DEBTOR_IBAN: .*valid IBAN/);
    expect(() => loadConfig({ ...SEPA, SEPA_DEBTOR_IBAN: undefined })).toThrow(/SEPA_DEBTOR_IBAN/);
    expect(() => loadConfig({ ...SEPA, SEPA_DEBTOR_BIC: 'CAIX' })).toThrow(/SEPA_DEBTOR_BIC: must be a BIC/);
    expect(() => loadConfig({ ...SEPA, SEPA_PAIN_VERSION: 'pain.001.001.12' })).toThrow(/SEPA_PAIN_VERSION/);
    expect(() => loadConfig({ PAYOUT_PROVIDER: 'bank-api' })).toThrow(/PAYOUT_PROVIDER/);
  });

  it('pays live environments by file and leaves sandboxes the sandbox provider', async () => {
    const provider = await payoutsFromConfig(loadConfig(SEPA));
    expect(provider?.files?.iban).toBe('ES9121000418450200051332');
    const sandbox = sandboxPayouts();
    const providers = payoutProviders(provider, sandbox);
    expect(providers.forMode(true)).toBe(provider);
    expect(providers.forMode(false)).toBe(sandbox);
    // Never asked payout by payout: a call is an unknown outcome, never a payment recorded.
    await expect(provider!.payout({ reference: 'r', iban: 'ES9121000418450200051332', amount: 1, currency: 'EUR', signal: new AbortController().signal })).rejects.toThrow(/payout files/);
  });
});
