import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type Client,
  ENGINES,
  problemPaths,
  type Reply,
  startTestService,
  type TestService,
  transactionBody,
} from './harness';
import { balanceOf, createWallet, fund, newClientId } from './ledger';
import { clientBody, documentBody, FILES, IBANS, pdfOfSize } from './documents';

// Every row is one bad request. Each must be answered by a 4xx problem+json that names
// the offending field (errors[].path), or says in `detail` what is wrong when there is no
// field (auth, JSON syntax, body size), never a 5xx; and nothing may have been created.

interface Fixtures {
  /** A product, tax, shipping option and coupon of the caller's environment (EUR). */
  product: string;
  disabledProduct: string;
  usdProduct: string;
  usdShipping: string;
  /** A client of the caller's environment, for its nested routes. */
  client: string;
  tax: string;
  shipping: string;
  coupon: string;
  /** Objects of ANOTHER environment. */
  foreignProduct: string;
  foreignTax: string;
  /** Wallets: EUR (holding 10.00), another EUR, USD, two JPY, and one of another environment. */
  clientId: string;
  eurWallet: string;
  eurWallet2: string;
  usdWallet: string;
  jpyWallet: string;
  jpyWallet2: string;
  foreignWallet: string;
  /** The caller's keys and another environment's, for the auth rows. */
  publicKey: string;
  secretKey: string;
  otherSecretKey: string;
}

interface Row {
  name: string;
  method?: 'GET' | 'POST' | 'PATCH';
  /** Default `/transaction/`. */
  path?: string | ((f: Fixtures) => string);
  body?: unknown | ((f: Fixtures) => unknown);
  /** Sent as is, instead of `body`. */
  raw?: string;
  headers?: Record<string, string>;
  /** Replaces the Authorization header; null sends none. */
  auth?: string | null | ((f: Fixtures) => string);
  status: 400 | 401 | 413 | 415;
  /** A path that must be among errors[].path. */
  field?: string;
  /** What `detail` must say when no field is named. */
  detail?: RegExp;
}

const tx = transactionBody;
const wallet = (f: Fixtures, over: Record<string, unknown>) => ({ wallet_id: 'w', name: 'W', client_id: f.clientId, currency: 'EUR', ...over });
const transfer = (f: Fixtures, over: Record<string, unknown>) => ({ source_wallet: f.eurWallet, destination_wallet: f.eurWallet2, amount: 1, ...over });
const line = (over: Record<string, unknown> = {}) => ({ amount: 1, product: { name: 'Tea', price: 3.5 }, ...over });
const inline = (over: Record<string, unknown>) => tx({ products: [line({ product: { name: 'Tea', price: 3.5, ...over } })] });
const RANDOM_UUID = '0190f5a8-7c1e-7a4b-9d2e-5f6a7b8c9d0e';
const MB = 'x'.repeat(1024 * 1024);
const AUTH = /AppKeys <public_key>:<secret_key>/;
/** An absent header, or an AppKeys value with an empty key (unset shell variables), is named as such. */
const NO_HEADER = /^No Authorization header\. Send Authorization: AppKeys <public_key>:<secret_key>$/;
const NO_SECRET = /^The AppKeys value is missing its secret key \(were PUBLIC_KEY and SECRET_KEY exported\?\)\. Send Authorization: AppKeys <public_key>:<secret_key>$/;
/** Built once, ahead: building it between two requests could outlast the keep-alive timeout. */
const HUGE_DOCUMENT = documentBody({ bytes: pdfOfSize(11 * 1024 * 1024) });

const rows: Row[] = [
  // Wrong types
  { name: 'currency as a number', body: tx({ currency: 978 }), status: 400, field: 'currency' },
  { name: 'products as a string', body: tx({ products: 'coffee' }), status: 400, field: 'products' },
  { name: 'quantity as a string', body: tx({ products: [line({ amount: '2' })] }), status: 400, field: 'products.0.amount' },
  { name: 'gateway_selected as a string', body: tx({ gateway_selected: 'yes' }), status: 400, field: 'gateway_selected' },
  { name: 'authorize as 1', body: tx({ authorize: 1 }), status: 400, field: 'authorize' },
  { name: 'order_id as a number', body: tx({ order_id: 42 }), status: 400, field: 'order_id' },
  { name: 'price as a string', body: inline({ price: '3.50' }), status: 400, field: 'products.0.product.price' },
  { name: 'body is an array', body: [tx()], status: 400, field: '(body)' },
  { name: 'body is null', raw: 'null', headers: { 'content-type': 'application/json' }, status: 400, field: '(body)' },
  { name: 'body is a string', raw: '"EUR"', headers: { 'content-type': 'application/json' }, status: 400, field: '(body)' },
  { name: 'source as an object', body: tx({ source: { amount: 1 } }), status: 400, field: 'source' },
  // Missing required fields
  { name: 'no currency', body: { products: [line()] }, status: 400, field: 'currency' },
  { name: 'no products', body: { currency: 'EUR' }, status: 400, field: 'products' },
  { name: 'empty object', body: {}, status: 400, field: 'products' },
  { name: 'line without amount', body: tx({ products: [{ product: { name: 'Tea', price: 1 } }] }), status: 400, field: 'products.0.amount' },
  { name: 'inline product without name', body: tx({ products: [{ amount: 1, product: { price: 1 } }] }), status: 400, field: 'products.0.product.name' },
  { name: 'inline product without price', body: tx({ products: [{ amount: 1, product: { name: 'Tea' } }] }), status: 400, field: 'products.0.product.price' },
  { name: 'line with neither product_id nor product', body: tx({ products: [{ amount: 1 }] }), status: 400, field: 'products.0.product_id' },
  { name: 'blank inline product name', body: inline({ name: '   ' }), status: 400, field: 'products.0.product.name' },
  // Currencies
  { name: 'unknown currency', body: tx({ currency: 'ABC' }), status: 400, field: 'currency' },
  { name: 'lower-case currency', body: tx({ currency: 'eur' }), status: 400, field: 'currency' },
  { name: 'four-letter currency', body: tx({ currency: 'EURO' }), status: 400, field: 'currency' },
  { name: 'gold is not a payable currency', body: tx({ currency: 'XAU' }), status: 400, field: 'currency' },
  // Decimals
  { name: 'EUR 1.001', body: inline({ price: 1.001 }), status: 400, field: 'products.0.product.price' },
  { name: 'JPY 1.5', body: tx({ currency: 'JPY', products: [line({ product: { name: 'Mochi', price: 1.5 } })] }), status: 400, field: 'products.0.product.price' },
  { name: 'KWD 1.0001', body: tx({ currency: 'KWD', products: [line({ product: { name: 'Dates', price: 1.0001 } })] }), status: 400, field: 'products.0.product.price' },
  { name: '0.1 + 0.2 as a price', body: inline({ price: 0.1 + 0.2 }), status: 400, field: 'products.0.product.price' },
  { name: 'tax_value with 3 decimals', body: tx({ tax_value: 0.001 }), status: 400, field: 'tax_value' },
  { name: 'shipping_value in JPY with decimals', body: tx({ currency: 'JPY', products: [line({ product: { name: 'M', price: 100 } })], shipping_value: 0.5 }), status: 400, field: 'shipping_value' },
  { name: 'quantity with 4 decimals', body: tx({ products: [line({ amount: 1.0001 })] }), status: 400, field: 'products.0.amount' },
  { name: 'quantity 1e-7', body: tx({ products: [line({ amount: 1e-7 })] }), status: 400, field: 'products.0.amount' },
  // Signs
  { name: 'zero quantity', body: tx({ products: [line({ amount: 0 })] }), status: 400, field: 'products.0.amount' },
  { name: 'negative quantity', body: tx({ products: [line({ amount: -1 })] }), status: 400, field: 'products.0.amount' },
  { name: 'negative price', body: inline({ price: -1 }), status: 400, field: 'products.0.product.price' },
  { name: 'negative coupon_value', body: tx({ coupon_value: -5 }), status: 400, field: 'coupon_value' },
  { name: 'negative tax_value', body: tx({ tax_value: -0.01 }), status: 400, field: 'tax_value' },
  // Huge numbers
  { name: 'price 1e300', body: inline({ price: 1e300 }), status: 400, field: 'products.0.product.price' },
  { name: 'price 1e13', body: inline({ price: 1e13 }), status: 400, field: 'products.0.product.price' },
  { name: 'quantity 1e7', body: tx({ products: [line({ amount: 1e7 })] }), status: 400, field: 'products.0.amount' },
  { name: 'shipping_value 1e21', body: tx({ shipping_value: 1e21 }), status: 400, field: 'shipping_value' },
  {
    name: 'line total beyond any amount (1e6 × 1e12)',
    body: tx({ products: [line({ amount: 1_000_000, product: { name: 'Yacht', price: 1e12 } })] }),
    status: 400,
    field: 'products.0',
  },
  {
    name: 'lines that add up beyond any amount',
    // 20 lines of EUR 1e12 each: every line is allowed, their sum (2e15 cents) is not.
    body: tx({ products: Array.from({ length: 20 }, () => line({ amount: 1000, product: { name: 'Ship', price: 1e9 } })) }),
    status: 400,
    field: 'products',
  },
  // Sizes
  { name: '1 MB string', body: tx({ note: MB }), status: 413, detail: /size limit/ },
  { name: '90 KB product name', body: inline({ name: 'x'.repeat(90_000) }), status: 400, field: 'products.0.product.name' },
  { name: 'note over 2000 characters', body: tx({ note: 'n'.repeat(2001) }), status: 400, field: 'note' },
  { name: '1001 product lines', body: tx({ products: Array.from({ length: 1001 }, () => line()) }), status: 400, field: 'products' },
  // Unknown fields
  { name: 'unknown top-level field', body: tx({ amount: 10 }), status: 400, field: 'amount' },
  { name: 'unknown field in a line', body: tx({ products: [line({ discount: 1 })] }), status: 400, field: 'products.0.discount' },
  { name: 'unknown field in an inline product', body: inline({ colour: 'red' }), status: 400, field: 'products.0.product.colour' },
  { name: 'unknown field in a source', body: tx({ source: [{ amount: 1, iban: 'x' }] }), status: 400, field: 'source.0.iban' },
  { name: 'read-only field sent (total_price)', body: tx({ total_price: 0 }), status: 400, field: 'total_price' },
  // JSON and media type
  { name: 'malformed JSON', raw: '{"currency": "EUR", ', headers: { 'content-type': 'application/json' }, status: 400, detail: /not valid JSON/ },
  { name: 'JSON with trailing text', raw: '{"currency": "EUR"} x', headers: { 'content-type': 'application/json' }, status: 400, detail: /not valid JSON/ },
  { name: 'single-quoted JSON', raw: "{'currency': 'EUR'}", headers: { 'content-type': 'application/json' }, status: 400, detail: /not valid JSON/ },
  { name: 'text/plain body', raw: JSON.stringify(tx()), headers: { 'content-type': 'text/plain' }, status: 415, field: '(body)' },
  { name: 'form-encoded body', raw: 'currency=EUR', headers: { 'content-type': 'application/x-www-form-urlencoded' }, status: 415, field: '(body)' },
  { name: 'no content type', raw: JSON.stringify(tx()), status: 415, field: '(body)' },
  // URLs
  { name: 'javascript: return_url', body: tx({ return_url: 'javascript:alert(1)' }), status: 400, field: 'return_url' },
  { name: 'relative return_url', body: tx({ return_url: '/thanks' }), status: 400, field: 'return_url' },
  { name: 'ftp return_url', body: tx({ return_url: 'ftp://shop.example/thanks' }), status: 400, field: 'return_url' },
  { name: 'protocol-relative cancel_url', body: tx({ cancel_url: '//shop.example/cancel' }), status: 400, field: 'cancel_url' },
  { name: 'data: cancel_url', body: tx({ cancel_url: 'data:text/html,<script>alert(1)</script>' }), status: 400, field: 'cancel_url' },
  { name: 'return_url carrying a signed return parameter', body: tx({ return_url: 'https://shop.example/thanks?status=D' }), status: 400, field: 'return_url' },
  { name: 'cancel_url carrying a signed return parameter', body: tx({ cancel_url: 'https://shop.example/cart?signature=x&timestamp=1' }), status: 400, field: 'cancel_url' },
  { name: 'file: notify_url', body: tx({ notify_url: 'file:///etc/passwd' }), status: 400, field: 'notify_url' },
  { name: 'notify_url that is not a URL', body: tx({ notify_url: 'not a url' }), status: 400, field: 'notify_url' },
  { name: 'notify_url with a password in it', body: tx({ notify_url: 'https://hookuser:S3cret@hooks.example/in' }), status: 400, field: 'notify_url' },
  { name: 'return_url over 2048 characters', body: tx({ return_url: `https://shop.example/${'a'.repeat(2048)}` }), status: 400, field: 'return_url' },
  // Language and dates
  { name: 'unknown language', body: tx({ language: 'de' }), status: 400, field: 'language' },
  { name: 'upper-case language', body: tx({ language: 'EN' }), status: 400, field: 'language' },
  { name: 'expired_date in the past', body: tx({ expired_date: '2020-01-01T00:00:00Z' }), status: 400, field: 'expired_date' },
  { name: 'expired_date as a date only', body: tx({ expired_date: '2099-01-01' }), status: 400, field: 'expired_date' },
  { name: 'expired_date on 30 February', body: tx({ expired_date: '2099-02-30T00:00:00Z' }), status: 400, field: 'expired_date' },
  { name: 'expired_date not ISO', body: tx({ expired_date: 'next tuesday' }), status: 400, field: 'expired_date' },
  { name: 'expired_date as epoch number', body: tx({ expired_date: 4102444800 }), status: 400, field: 'expired_date' },
  // Lines and references
  { name: 'empty products', body: tx({ products: [] }), status: 400, field: 'products' },
  { name: 'both product_id and product', body: (f: Fixtures) => tx({ products: [line({ product_id: f.product })] }), status: 400, field: 'products.0.product_id' },
  { name: 'product_id that is not a UUID', body: tx({ products: [{ amount: 1, product_id: 'sku-1' }] }), status: 400, field: 'products.0.product_id' },
  { name: 'unknown product id', body: tx({ products: [{ amount: 1, product_id: RANDOM_UUID }] }), status: 400, field: 'products.0.product_id' },
  { name: "another environment's product", body: (f: Fixtures) => tx({ products: [{ amount: 1, product_id: f.foreignProduct }] }), status: 400, field: 'products.0.product_id' },
  { name: 'product in another currency', body: (f: Fixtures) => tx({ products: [line(), { amount: 1, product_id: f.usdProduct }] }), status: 400, field: 'products.1.product_id' },
  { name: 'disabled product', body: (f: Fixtures) => tx({ products: [{ amount: 1, product_id: f.disabledProduct }] }), status: 400, field: 'products.0.product_id' },
  { name: 'unknown tax id', body: tx({ tax: RANDOM_UUID }), status: 400, field: 'tax' },
  { name: 'unknown shipping id', body: tx({ shipping: RANDOM_UUID }), status: 400, field: 'shipping' },
  { name: 'unknown coupon id', body: tx({ coupon: RANDOM_UUID }), status: 400, field: 'coupon' },
  { name: "another environment's tax", body: (f: Fixtures) => tx({ tax: f.foreignTax }), status: 400, field: 'tax' },
  { name: 'a product id given as the tax', body: (f: Fixtures) => tx({ tax: f.product }), status: 400, field: 'tax' },
  { name: 'shipping in another currency', body: (f: Fixtures) => tx({ shipping: f.usdShipping }), status: 400, field: 'shipping' },
  { name: 'tax id that is not a UUID', body: tx({ tax: 'VAT' }), status: 400, field: 'tax' },
  // extra, source, destination
  { name: 'extra that is not JSON text', body: tx({ extra: '{not json' }), status: 400, field: 'extra' },
  { name: 'extra as an object', body: tx({ extra: { a: 1 } }), status: 400, field: 'extra' },
  // Within its 10,000 characters, 4,999 levels deep: a recursive walk of it overflowed the stack (a 500).
  { name: 'extra nested 4,999 levels deep', body: tx({ extra: `${'['.repeat(4999)}${']'.repeat(4999)}` }), status: 400, field: 'extra' },
  { name: 'extra nested 33 levels deep', body: tx({ extra: `${'{"a":'.repeat(33)}1${'}'.repeat(33)}` }), status: 400, field: 'extra' },
  { name: 'source amount above total', body: tx({ source: [{ wallet_id: RANDOM_UUID, amount: 10 }, { wallet_id: RANDOM_UUID, amount: 7.01 }] }), status: 400, field: 'source' },
  { name: 'source amount below total', body: tx({ source: [{ wallet_id: RANDOM_UUID, amount: 16.99 }] }), status: 400, field: 'source' },
  { name: 'source naming no payer', body: tx({ source: [{ amount: 17 }] }), status: 400, field: 'source.0.wallet_id' },
  { name: "another environment's source wallet", body: (f: Fixtures) => tx({ source: [{ wallet_id: f.foreignWallet, amount: 17 }] }), status: 400, field: 'source.0.wallet_id' },
  { name: 'destination amount above total', body: tx({ destination: [{ wallet_id: RANDOM_UUID, amount: 17.01 }] }), status: 400, field: 'destination' },
  { name: 'destination without wallet_id', body: tx({ destination: [{ amount: 1 }] }), status: 400, field: 'destination.0.wallet_id' },
  { name: "another environment's destination wallet", body: (f: Fixtures) => tx({ destination: [{ wallet_id: f.foreignWallet, amount: 1 }] }), status: 400, field: 'destination.0.wallet_id' },
  { name: 'destination wallet in another currency', body: (f: Fixtures) => tx({ destination: [{ wallet_id: f.usdWallet, amount: 1 }] }), status: 400, field: 'destination.0.wallet_id' },
  { name: 'zero source amount', body: tx({ source: [{ amount: 0 }] }), status: 400, field: 'source.0.amount' },
  { name: 'source amount with 3 decimals', body: tx({ source: [{ wallet_id: RANDOM_UUID, amount: 1.005 }] }), status: 400, field: 'source.0.amount' },
  { name: 'source wallet_id not a UUID', body: tx({ source: [{ amount: 1, wallet_id: 'w-1' }] }), status: 400, field: 'source.0.wallet_id' },
  // Catalogue bodies
  { name: 'fixed coupon without currency', path: '/coupon/', body: { name: 'Ten off', kind: 'fixed', value: 10 }, status: 400, field: 'currency' },
  { name: 'percent coupon with currency', path: '/coupon/', body: { name: 'Ten', kind: 'percent', value: 10, currency: 'EUR' }, status: 400, field: 'currency' },
  { name: 'percent coupon above 100', path: '/coupon/', body: { name: 'Free+', kind: 'percent', value: 150 }, status: 400, field: 'value' },
  { name: 'unknown coupon kind', path: '/coupon/', body: { name: 'X', kind: 'bogo', value: 1 }, status: 400, field: 'kind' },
  { name: 'tax rate above 100', path: '/tax/', body: { name: 'VAT', rate: 101 }, status: 400, field: 'rate' },
  { name: 'tax rate with 5 decimals', path: '/tax/', body: { name: 'VAT', rate: 21.00001 }, status: 400, field: 'rate' },
  { name: 'product price EUR 1.001', path: '/product/', body: { name: 'P', price: 1.001, currency: 'EUR' }, status: 400, field: 'price' },
  { name: 'product lower-case currency', path: '/product/', body: { name: 'P', price: 1, currency: 'usd' }, status: 400, field: 'currency' },
  { name: 'product with unknown field', path: '/product/', body: { name: 'P', price: 1, currency: 'EUR', sku: 'x' }, status: 400, field: 'sku' },
  { name: 'product with empty name', path: '/product/', body: { name: '', price: 1, currency: 'EUR' }, status: 400, field: 'name' },
  { name: 'plan with unknown interval', path: '/plan/', body: { name: 'P', amount: 1, currency: 'EUR', interval: 'fortnight' }, status: 400, field: 'interval' },
  { name: 'plan with interval_count 0', path: '/plan/', body: { name: 'P', amount: 1, currency: 'EUR', interval: 'month', interval_count: 0 }, status: 400, field: 'interval_count' },
  { name: 'plan with fractional trial_days', path: '/plan/', body: { name: 'P', amount: 1, currency: 'EUR', interval: 'month', trial_days: 1.5 }, status: 400, field: 'trial_days' },
  { name: 'shipping without currency', path: '/shipping/', body: { name: 'Courier', price: 4.95 }, status: 400, field: 'currency' },
  { name: 'shipping JPY with decimals', path: '/shipping/', body: { name: 'Courier', price: 4.5, currency: 'JPY' }, status: 400, field: 'price' },
  // Clients
  { name: 'client without name', path: '/client/', body: { id_country: 'GB', id_number: 'X1' }, status: 400, field: 'name' },
  { name: 'client without id_country', path: '/client/', body: { name: 'Ada', id_number: 'X1' }, status: 400, field: 'id_country' },
  { name: 'client without id_number', path: '/client/', body: { name: 'Ada', id_country: 'GB' }, status: 400, field: 'id_number' },
  { name: 'client name as a number', path: '/client/', body: clientBody({ name: 42 }), status: 400, field: 'name' },
  { name: 'blank client name', path: '/client/', body: clientBody({ name: '  ' }), status: 400, field: 'name' },
  { name: 'client name over 255 characters', path: '/client/', body: clientBody({ name: 'a'.repeat(256) }), status: 400, field: 'name' },
  { name: 'HTML in a client name', path: '/client/', body: clientBody({ name: '<script>alert(1)</script>' }), status: 400, field: 'name' },
  { name: 'HTML in a city', path: '/client/', body: clientBody({ city: 'Paris<img src=x onerror=alert(1)>' }), status: 400, field: 'city' },
  { name: 'control character in a street', path: '/client/', body: clientBody({ street: 'Main St\u0000 1' }), status: 400, field: 'street' },
  { name: 'id_number over 64 characters', path: '/client/', body: clientBody({ id_number: '9'.repeat(65) }), status: 400, field: 'id_number' },
  { name: 'unknown id_country', path: '/client/', body: clientBody({ id_country: 'XX' }), status: 400, field: 'id_country' },
  { name: 'lower-case id_country', path: '/client/', body: clientBody({ id_country: 'gb' }), status: 400, field: 'id_country' },
  { name: 'three-letter id_country', path: '/client/', body: clientBody({ id_country: 'GBR' }), status: 400, field: 'id_country' },
  { name: 'unknown nationality', path: '/client/', body: clientBody({ nationality: 'ZZ' }), status: 400, field: 'nationality' },
  { name: 'country as a number', path: '/client/', body: clientBody({ country: 34 }), status: 400, field: 'country' },
  { name: 'birth_date on 30 February', path: '/client/', body: clientBody({ birth_date: '2025-02-30' }), status: 400, field: 'birth_date' },
  { name: 'birth_date on 29 February of a common year', path: '/client/', body: clientBody({ birth_date: '1990-02-29' }), status: 400, field: 'birth_date' },
  { name: 'birth_date written DD/MM/YYYY', path: '/client/', body: clientBody({ birth_date: '31/12/1990' }), status: 400, field: 'birth_date' },
  { name: 'birth_date in the future', path: '/client/', body: clientBody({ birth_date: '2999-01-01' }), status: 400, field: 'birth_date' },
  { name: 'id_expiration_date in month 13', path: '/client/', body: clientBody({ id_expiration_date: '2030-13-01' }), status: 400, field: 'id_expiration_date' },
  { name: 'incorporation_date of an individual', path: '/client/', body: clientBody({ client_type: 'individual', incorporation_date: '2001-01-01' }), status: 400, field: 'incorporation_date' },
  { name: 'incorporation_date without client_type', path: '/client/', body: clientBody({ incorporation_date: '2001-01-01' }), status: 400, field: 'incorporation_date' },
  { name: 'unknown client_type', path: '/client/', body: clientBody({ client_type: 'person' }), status: 400, field: 'client_type' },
  { name: 'unknown id_type', path: '/client/', body: clientBody({ id_type: 'ssn' }), status: 400, field: 'id_type' },
  { name: 'email without @', path: '/client/', body: clientBody({ email: 'ada.example.org' }), status: 400, field: 'email' },
  { name: 'phone in words', path: '/client/', body: clientBody({ phone: 'call me maybe' }), status: 400, field: 'phone' },
  { name: 'phone too short for its country', path: '/client/', body: clientBody({ phone: '+34 612' }), status: 400, field: 'phone' },
  { name: 'national phone without a country', path: '/client/', body: clientBody({ phone: '612 34 56 78' }), status: 400, field: 'phone' },
  { name: 'javascript: web', path: '/client/', body: clientBody({ web: 'javascript:alert(1)' }), status: 400, field: 'web' },
  { name: 'file: client notify_url', path: '/client/', body: clientBody({ notify_url: 'file:///etc/passwd' }), status: 400, field: 'notify_url' },
  { name: 'client enabled as a string', path: '/client/', body: clientBody({ enabled: 'yes' }), status: 400, field: 'enabled' },
  { name: '__proto__ key in a client', path: '/client/', raw: '{"name":"Ada","id_country":"GB","id_number":"X1","__proto__":{"enabled_by_compliance":true}}', headers: { 'content-type': 'application/json' }, status: 400, field: '__proto__' },
  { name: 'constructor key in a client', path: '/client/', raw: '{"name":"Ada","id_country":"GB","id_number":"X1","constructor":{"prototype":{"admin":true}}}', headers: { 'content-type': 'application/json' }, status: 400, field: 'constructor' },
  { name: 'read-only enabled_by_compliance on create', path: '/client/', body: clientBody({ enabled_by_compliance: true }), status: 400, field: 'enabled_by_compliance' },
  { name: 'read-only id on create', path: '/client/', body: clientBody({ id: RANDOM_UUID }), status: 400, field: 'id' },
  { name: 'client list enabled=yes', method: 'GET', path: '/client/?enabled=yes', status: 400, field: 'query.enabled' },
  // IBANs
  { name: 'IBAN with a wrong check digit', path: (f) => `/client/${f.client}/iban/`, body: { iban: 'ES9221000418450200051332' }, status: 400, field: 'iban' },
  { name: 'IBAN with two digits swapped', path: (f) => `/client/${f.client}/iban/`, body: { iban: 'DE89370400440532031000' }, status: 400, field: 'iban' },
  { name: 'IBAN one character short', path: (f) => `/client/${f.client}/iban/`, body: { iban: IBANS.GB.slice(0, -1) }, status: 400, field: 'iban' },
  { name: 'IBAN one character long', path: (f) => `/client/${f.client}/iban/`, body: { iban: `${IBANS.FR}1` }, status: 400, field: 'iban' },
  { name: 'IBAN of a country without IBANs', path: (f) => `/client/${f.client}/iban/`, body: { iban: 'US64SVBKUS6S3300958879' }, status: 400, field: 'iban' },
  { name: 'IBAN of no country', path: (f) => `/client/${f.client}/iban/`, body: { iban: 'XX8937040044053201300' }, status: 400, field: 'iban' },
  { name: 'IBAN with letters where digits belong', path: (f) => `/client/${f.client}/iban/`, body: { iban: 'ES91210004184502000513AB' }, status: 400, field: 'iban' },
  { name: 'IBAN as a number', path: (f) => `/client/${f.client}/iban/`, body: { iban: 9121000418 }, status: 400, field: 'iban' },
  { name: 'IBAN of 100 characters', path: (f) => `/client/${f.client}/iban/`, body: { iban: 'ES'.padEnd(100, '1') }, status: 400, field: 'iban' },
  { name: 'no IBAN', path: (f) => `/client/${f.client}/iban/`, body: { iban_id: 'main' }, status: 400, field: 'iban' },
  { name: 'HTML in an iban_id', path: (f) => `/client/${f.client}/iban/`, body: { iban_id: '<b>main</b>', iban: IBANS.ES }, status: 400, field: 'iban_id' },
  { name: 'unknown field bic on an IBAN', path: (f) => `/client/${f.client}/iban/`, body: { iban: IBANS.ES, bic: 'CAIXESBBXXX' }, status: 400, field: 'bic' },
  { name: 'read-only enabled_by_compliance on an IBAN', path: (f) => `/client/${f.client}/iban/`, body: { iban: IBANS.ES, enabled_by_compliance: true }, status: 400, field: 'enabled_by_compliance' },
  // Documents
  { name: 'document without file', path: (f) => `/client/${f.client}/document/`, body: { type: 'identity_front' }, status: 400, field: 'file' },
  { name: 'document without type', path: (f) => `/client/${f.client}/document/`, body: { file: documentBody().file }, status: 400, field: 'type' },
  { name: 'unknown document type', path: (f) => `/client/${f.client}/document/`, body: documentBody({ type: 'selfie' }), status: 400, field: 'type' },
  { name: 'document file as a string', path: (f) => `/client/${f.client}/document/`, body: { type: 'other', file: 'passport.pdf' }, status: 400, field: 'file' },
  { name: 'document content type text/html', path: (f) => `/client/${f.client}/document/`, body: documentBody({ content_type: 'text/html', name: 'x.html' }), status: 400, field: 'file.content_type' },
  { name: 'a PNG named .pdf', path: (f) => `/client/${f.client}/document/`, body: documentBody({ content_type: 'image/png', name: 'passport.pdf' }), status: 400, field: 'file.name' },
  { name: 'PNG bytes sent as a PDF', path: (f) => `/client/${f.client}/document/`, body: documentBody({ bytes: FILES['image/png'].bytes }), status: 400, field: 'file.content_type' },
  { name: 'HTML bytes sent as a PDF', path: (f) => `/client/${f.client}/document/`, body: documentBody({ bytes: Buffer.from('<html><script>alert(1)</script></html>') }), status: 400, field: 'file.content_type' },
  { name: 'document data that is not base64', path: (f) => `/client/${f.client}/document/`, body: { type: 'other', file: { ...documentBody().file, data: 'not base64!' } }, status: 400, field: 'file.data' },
  { name: 'empty document data', path: (f) => `/client/${f.client}/document/`, body: { type: 'other', file: { ...documentBody().file, data: '' } }, status: 400, field: 'file.data' },
  { name: 'document name with a path', path: (f) => `/client/${f.client}/document/`, body: documentBody({ name: '../../etc/passwd.pdf' }), status: 400, field: 'file.name' },
  { name: 'HTML in a document name', path: (f) => `/client/${f.client}/document/`, body: documentBody({ name: '<img src=x onerror=alert(1)>.pdf' }), status: 400, field: 'file.name' },
  { name: 'unknown field url in a file', path: (f) => `/client/${f.client}/document/`, body: { type: 'other', file: { ...documentBody().file, url: 'https://x.example/a.pdf' } }, status: 400, field: 'file.url' },
  { name: '11 MiB document', path: (f) => `/client/${f.client}/document/`, body: HUGE_DOCUMENT, status: 413, field: 'file.data' },
  { name: 'document list status=approved', method: 'GET', path: (f) => `/client/${f.client}/document/?status=approved`, status: 400, field: 'query.status' },
  // Wallets
  { name: 'wallet without client_id', path: '/wallet/', body: { wallet_id: 'w', name: 'W', currency: 'EUR' }, status: 400, field: 'client_id' },
  { name: 'wallet client_id not a UUID', path: '/wallet/', body: { wallet_id: 'w', name: 'W', client_id: 'c-1', currency: 'EUR' }, status: 400, field: 'client_id' },
  { name: 'wallet with an unknown currency', path: '/wallet/', body: (f: Fixtures) => wallet(f, { currency: 'XXY' }), status: 400, field: 'currency' },
  { name: 'wallet with an empty wallet_id', path: '/wallet/', body: (f: Fixtures) => wallet(f, { wallet_id: '' }), status: 400, field: 'wallet_id' },
  { name: 'wallet created with a balance', path: '/wallet/', body: (f: Fixtures) => wallet(f, { balance: 100 }), status: 400, field: 'balance' },
  { name: 'wallet with an ftp notify_url', path: '/wallet/', body: (f: Fixtures) => wallet(f, { notify_url: 'ftp://x.example/' }), status: 400, field: 'notify_url' },
  // Transfers
  { name: 'transfer of 0', path: '/transfer/', body: (f: Fixtures) => transfer(f, { amount: 0 }), status: 400, field: 'amount' },
  { name: 'transfer of a negative amount', path: '/transfer/', body: (f: Fixtures) => transfer(f, { amount: -1 }), status: 400, field: 'amount' },
  { name: 'transfer of EUR 1.001', path: '/transfer/', body: (f: Fixtures) => transfer(f, { amount: 1.001 }), status: 400, field: 'amount' },
  { name: 'transfer of JPY 1.5', path: '/transfer/', body: (f: Fixtures) => transfer(f, { source_wallet: f.jpyWallet, destination_wallet: f.jpyWallet2, amount: 1.5 }), status: 400, field: 'amount' },
  { name: 'transfer amount as text', path: '/transfer/', body: (f: Fixtures) => transfer(f, { amount: '1' }), status: 400, field: 'amount' },
  { name: 'transfer between currencies', path: '/transfer/', body: (f: Fixtures) => transfer(f, { destination_wallet: f.usdWallet }), status: 400, field: 'destination_wallet' },
  { name: 'transfer to the same wallet', path: '/transfer/', body: (f: Fixtures) => transfer(f, { destination_wallet: f.eurWallet }), status: 400, field: 'destination_wallet' },
  { name: 'transfer from an unknown wallet', path: '/transfer/', body: (f: Fixtures) => transfer(f, { source_wallet: RANDOM_UUID }), status: 400, field: 'source_wallet' },
  { name: 'transfer to an unknown wallet', path: '/transfer/', body: (f: Fixtures) => transfer(f, { destination_wallet: RANDOM_UUID }), status: 400, field: 'destination_wallet' },
  { name: "transfer from another environment's wallet", path: '/transfer/', body: (f: Fixtures) => transfer(f, { source_wallet: f.foreignWallet }), status: 400, field: 'source_wallet' },
  { name: "transfer to another environment's wallet", path: '/transfer/', body: (f: Fixtures) => transfer(f, { destination_wallet: f.foreignWallet }), status: 400, field: 'destination_wallet' },
  { name: 'transfer source_wallet not a UUID', path: '/transfer/', body: (f: Fixtures) => transfer(f, { source_wallet: 'w-1' }), status: 400, field: 'source_wallet' },
  { name: 'transfer to a wallet and an IBAN', path: '/transfer/', body: (f: Fixtures) => transfer(f, { destination_iban: RANDOM_UUID }), status: 400, field: 'destination_wallet' },
  { name: 'transfer without a destination', path: '/transfer/', body: (f: Fixtures) => transfer(f, { destination_wallet: undefined }), status: 400, field: 'destination_wallet' },
  { name: 'transfer with an empty transfer_id', path: '/transfer/', body: (f: Fixtures) => transfer(f, { transfer_id: '' }), status: 400, field: 'transfer_id' },
  // Query strings
  { name: 'page_size 0', method: 'GET', path: '/transaction/?page_size=0', status: 400, field: 'query.page_size' },
  { name: 'page_size 101', method: 'GET', path: '/transaction/?page_size=101', status: 400, field: 'query.page_size' },
  { name: 'page_size 2.5', method: 'GET', path: '/transaction/?page_size=2.5', status: 400, field: 'query.page_size' },
  { name: 'page 0', method: 'GET', path: '/transaction/?page=0', status: 400, field: 'query.page' },
  { name: 'page -1', method: 'GET', path: '/product/?page=-1', status: 400, field: 'query.page' },
  { name: 'page abc', method: 'GET', path: '/coupon/?page=abc', status: 400, field: 'query.page' },
  { name: 'page given twice', method: 'GET', path: '/tax/?page=1&page=2', status: 400, field: 'query.page' },
  { name: 'unknown status filter', method: 'GET', path: '/transaction/?status=X', status: 400, field: 'query.status' },
  { name: 'unknown coupon kind filter', method: 'GET', path: '/coupon/?kind=bogus', status: 400, field: 'query.kind' },
  { name: 'enabled=yes filter', method: 'GET', path: '/product/?enabled=yes', status: 400, field: 'query.enabled' },
  // Idempotency-Key
  { name: 'Idempotency-Key of 256 characters', body: tx(), headers: { 'idempotency-key': 'k'.repeat(256) }, status: 400, field: 'header.Idempotency-Key' },
  { name: 'Idempotency-Key with a space', body: tx(), headers: { 'idempotency-key': 'order 1' }, status: 400, field: 'header.Idempotency-Key' },
  // Auth: a valid body, so only the credential can be the reason
  { name: 'no Authorization header', body: tx(), auth: null, status: 401, detail: NO_HEADER },
  { name: 'empty Authorization header', body: tx(), auth: '', status: 401, detail: NO_HEADER },
  { name: 'Bearer token', body: tx(), auth: 'Bearer x', status: 401, detail: AUTH },
  { name: 'Basic credentials', body: tx(), auth: (f) => `Basic ${Buffer.from(`${f.publicKey}:${f.secretKey}`).toString('base64')}`, status: 401, detail: AUTH },
  { name: 'AppKeys with the public key only', body: tx(), auth: (f) => `AppKeys ${f.publicKey}`, status: 401, detail: AUTH },
  { name: 'AppKeys without a secret after the colon', body: tx(), auth: (f) => `AppKeys ${f.publicKey}:`, status: 401, detail: NO_SECRET },
  { name: 'wrong secret', body: tx(), auth: (f) => `AppKeys ${f.publicKey}:sk_${'A'.repeat(43)}`, status: 401, detail: AUTH },
  { name: "another environment's secret", body: tx(), auth: (f) => `AppKeys ${f.publicKey}:${f.otherSecretKey}`, status: 401, detail: AUTH },
  { name: 'unknown public key', body: tx(), auth: (f) => `AppKeys pk_unknown:${f.secretKey}`, status: 401, detail: AUTH },
  { name: 'keys swapped', body: tx(), auth: (f) => `AppKeys ${f.secretKey}:${f.publicKey}`, status: 401, detail: AUTH },
  { name: 'lower-case scheme', body: tx(), auth: (f) => `appkeys ${f.publicKey}:${f.secretKey}`, status: 401, detail: AUTH },
  { name: 'two spaces after the scheme', body: tx(), auth: (f) => `AppKeys  ${f.publicKey}:${f.secretKey}`, status: 401, detail: AUTH },
  { name: 'space around the colon', body: tx(), auth: (f) => `AppKeys ${f.publicKey} : ${f.secretKey}`, status: 401, detail: AUTH },
  { name: 'bad credential on a GET', method: 'GET', path: '/product/', auth: 'AppKeys x:y', status: 401, detail: AUTH },
  { name: 'bad credential on a catalogue POST', path: '/tax/', body: { name: 'VAT', rate: 21 }, auth: 'AppKeys x:y', status: 401, detail: AUTH },
];

describe.each(ENGINES)('bad input on %s', (engine) => {
  let t: TestService;
  let api: Client;
  let f: Fixtures;
  let unauthorized: Reply;

  beforeAll(async () => {
    t = await startTestService(engine);
    api = await t.newEnvironment('Caller');
    const other = await t.newEnvironment('Other');
    const made = async (c: Client, path: string, body: unknown) => {
      const r = await c.post(path, body);
      if (r.status !== 201) throw new Error(`${path}: ${r.status} ${r.text}`);
      return r.body.id as string;
    };
    f = {
      product: await made(api, '/product/', { name: 'Mug', price: 12.5, currency: 'EUR' }),
      disabledProduct: await made(api, '/product/', { name: 'Old mug', price: 9, currency: 'EUR', enabled: false }),
      usdProduct: await made(api, '/product/', { name: 'Cup', price: 3, currency: 'USD' }),
      usdShipping: await made(api, '/shipping/', { name: 'US mail', price: 5, currency: 'USD' }),
      tax: await made(api, '/tax/', { name: 'VAT', rate: 21 }),
      shipping: await made(api, '/shipping/', { name: 'Courier', price: 4.95, currency: 'EUR' }),
      coupon: await made(api, '/coupon/', { name: 'Five', kind: 'fixed', value: 5, currency: 'EUR' }),
      foreignProduct: await made(other, '/product/', { name: 'Theirs', price: 1, currency: 'EUR' }),
      foreignTax: await made(other, '/tax/', { name: 'Their VAT', rate: 20 }),
      client: await made(api, '/client/', clientBody()),
      clientId: await newClientId(api),
      eurWallet: (await createWallet(api)).id,
      eurWallet2: (await createWallet(api)).id,
      usdWallet: (await createWallet(api, { currency: 'USD' })).id,
      jpyWallet: (await createWallet(api, { currency: 'JPY' })).id,
      jpyWallet2: (await createWallet(api, { currency: 'JPY' })).id,
      foreignWallet: (await createWallet(other)).id,
      publicKey: api.keys.public_key,
      secretKey: api.keys.secret_key,
      otherSecretKey: other.keys.secret_key,
    };
    await fund(api, { id: f.eurWallet, currency: 'EUR' }, 10);
    unauthorized = await api.request('POST', '/transaction/', { body: tx(), auth: `AppKeys ${api.keys.public_key}:sk_${'B'.repeat(43)}` });
  });
  afterAll(async () => {
    // None of the refused transfers moved money.
    expect(await balanceOf(api, f.eurWallet)).toBe(10);
    await t.close();
  });

  it('the table is large enough and every row says what it expects', () => {
    expect(rows.length).toBeGreaterThanOrEqual(40);
    expect(new Set(rows.map((r) => r.name)).size).toBe(rows.length);
    for (const r of rows) expect(r.field ?? r.detail, r.name).toBeDefined();
  });

  it('the reference valid body itself is accepted', async () => {
    expect((await api.post('/transaction/', tx())).status).toBe(201);
  });

  it.each(rows)('$name → $status', async (row) => {
    const method = row.method ?? 'POST';
    const path = typeof row.path === 'function' ? row.path(f) : (row.path ?? '/transaction/');
    const listPath = path.replace(/\?.*$/, '');
    const before = method === 'GET' ? 0 : await api.count(listPath);

    const body = typeof row.body === 'function' ? (row.body as (f: Fixtures) => unknown)(f) : row.body;
    const auth = typeof row.auth === 'function' ? row.auth(f) : row.auth;
    const res = await api.request(method, path, { body, raw: row.raw, headers: row.headers, auth });

    expect(res.status, res.text.slice(0, 300)).toBe(row.status);
    const paths = problemPaths(res);
    if (row.field) expect(paths, res.text.slice(0, 300)).toContain(row.field);
    if (row.detail) expect(res.body.detail).toMatch(row.detail);
    expect(res.text).not.toMatch(/\n\s+at |node_modules|\.ts:\d+/);

    if (row.status === 401) {
      expect(res.headers.get('www-authenticate')).toMatch(/^AppKeys( |$)/);
      // Every pair that opens nothing gets the same answer: nothing tells a wrong secret from
      // an unknown key. Only an absent header or an empty key is named, which reveals nothing.
      const named = row.detail === NO_HEADER || row.detail === NO_SECRET;
      expect({ ...res.body, request_id: null, ...(named ? { detail: null } : {}) }).toEqual({ ...unauthorized.body, request_id: null, ...(named ? { detail: null } : {}) });
    }
    if (method !== 'GET') expect(await api.count(listPath)).toBe(before);
  });

  it('a missing or wrong credential is refused before anything else is looked at', async () => {
    expect(unauthorized.status).toBe(401);
    expect(unauthorized.headers.get('www-authenticate')).toMatch(/^AppKeys/);
    // Even for a route that does not exist and a malformed body.
    const res = await api.request('POST', '/nothing-here/', { raw: '{', headers: { 'content-type': 'application/json' }, auth: 'AppKeys x:y' });
    expect(res.status).toBe(401);
    expect({ ...res.body, request_id: null }).toEqual({ ...unauthorized.body, request_id: null });
    const keyless = await api.request('POST', '/nothing-here/', { raw: '{', headers: { 'content-type': 'application/json' }, auth: null });
    expect(keyless.status).toBe(401);
    expect(keyless.body.detail).toMatch(NO_HEADER);
  });

  it('random garbage in any field is a 201 or a 400 naming fields, never a 5xx', async () => {
    const fields = [
      'currency', 'order_id', 'note', 'extra', 'return_url', 'cancel_url', 'notify_url', 'gateway_selected',
      'language', 'expired_date', 'products', 'tax_value', 'tax_name', 'tax', 'shipping_value', 'shipping_name',
      'shipping', 'coupon_value', 'coupon_name', 'coupon', 'authorize', 'source', 'destination',
    ];
    const number = fc.oneof(
      fc.double({ noNaN: true, noDefaultInfinity: true }),
      fc.integer(),
      fc.constantFrom(0, -0, 1e-7, 1e21, 0.1 + 0.2, Number.MAX_SAFE_INTEGER, 2 ** 63, 999_999_999_999.99),
    );
    const value = fc.oneof(fc.jsonValue({ maxDepth: 2 }), number, fc.string({ maxLength: 20 }));
    const lineArb = fc.record(
      {
        amount: fc.oneof(number, value),
        product: fc.record({ name: fc.oneof(fc.string({ maxLength: 10 }), value), price: fc.oneof(number, value) }, { requiredKeys: [] }),
        product_id: fc.oneof(value, fc.constant(f.product), fc.uuid()),
      },
      { requiredKeys: [] },
    );
    const bodyArb = fc.tuple(
      fc.dictionary(fc.constantFrom(...fields), value, { maxKeys: 3 }),
      fc.array(lineArb, { minLength: 0, maxLength: 3 }),
      fc.boolean(),
    );
    let created = 0;
    await fc.assert(
      fc.asyncProperty(bodyArb, async ([over, lines, keepProducts]) => {
        const body = { ...tx(keepProducts ? {} : { products: lines }), ...over };
        const res = await api.post('/transaction/', body);
        if (res.status === 201) {
          created++;
          expect(Number.isFinite(res.body.total_price)).toBe(true);
          expect(res.body.total_price).toBeGreaterThanOrEqual(0);
          return;
        }
        expect(res.status, `${JSON.stringify(body).slice(0, 300)} → ${res.text.slice(0, 300)}`).toBe(400);
        expect(problemPaths(res).length).toBeGreaterThan(0);
      }),
      { numRuns: 150 },
    );
    // Sanity: the generator does produce valid bodies too.
    expect(created).toBeGreaterThan(0);
  });
});
