import { PUBLIC_TEST_KEY, PUBLIC_TEST_MERCHANT } from '../../server/payments/redsys/settings';
import { type RedsysDouble, startRedsysDouble } from '../redsys/server';
import { expect, type Service, startService, test } from './fixtures';

// A spec file's own service with the Redsys double connected to its demo sandbox through
// the processors API (REDSYS_URL, Redsys's published test terminal), as a merchant connects
// Redsys; started once for the file.

export function useRedsysShop(): { readonly service: Service; readonly redsys: RedsysDouble } {
  let service: Service | undefined;
  let redsys: RedsysDouble | undefined;
  let stop: (() => Promise<void>) | undefined;
  test.beforeAll(async () => {
    redsys = await startRedsysDouble();
    ({ service, stop } = await startService({ BACKGROUND_WORK: 'false', REDSYS_URL: redsys.url }));
    const connected = await service.api('POST', '/processor/', { type: 'redsys', merchant_code: PUBLIC_TEST_MERCHANT, terminal: '1', secret_key: PUBLIC_TEST_KEY, signature_version: 'HMAC_SHA256_V1' });
    expect(connected.status, JSON.stringify(connected.body)).toBe(201);
  });
  test.afterAll(async () => {
    await stop?.();
    await redsys?.close();
  });
  return {
    get service() {
      return service!;
    },
    get redsys() {
      return redsys!;
    },
  };
}
