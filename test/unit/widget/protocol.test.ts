import { describe, expect, it } from 'vitest';
import { PROTOCOL_VERSION, acceptParentMessage, parseMessage } from '../../../widget/embed/protocol';

// The loader's origin and source check is tested through a mount (embed.test.ts).

// Stand-ins for window objects: the checks compare identity only.
const checkoutFrame = { name: 'our iframe contentWindow' };
const CHECKOUT = 'https://checkout.example';

const completed = {
  type: 'checkout:completed',
  version: PROTOCOL_VERSION,
  transaction_id: 'tx_1',
  status: 'D',
  order_id: 'ord_1',
  redirect: 'https://shop.example/thanks',
};

describe('parseMessage', () => {
  it('reads a ready message without a language (an older frame) or with a mistyped one as null', () => {
    expect(parseMessage({ type: 'checkout:ready', version: 1 })).toEqual({ type: 'checkout:ready', version: 1, language: null });
    expect(parseMessage({ type: 'checkout:ready', version: 1, language: { es: true } })).toEqual({ type: 'checkout:ready', version: 1, language: null });
  });

  it.each([
    { type: 'checkout:ready', version: 1, language: 'es' },
    { type: 'checkout:ready', version: 1, language: null },
    { type: 'checkout:resize', version: 1, height: 640 },
    { type: 'checkout:completed', version: 1, transaction_id: 't', status: 'D', order_id: null, redirect: null },
    { type: 'checkout:cancelled', version: 1, transaction_id: 't', status: 'C', order_id: 'o', redirect: 'https://x.example/' },
    { type: 'checkout:error', version: 1, code: 'declined', message: 'Card declined' },
    { type: 'checkout:close', version: 1 },
  ])('accepts $type', (message) => {
    expect(parseMessage(message)).toEqual(message);
  });

  it.each([
    ['null', null],
    ['undefined', undefined],
    ['a string', 'checkout:ready'],
    ['a JSON string', JSON.stringify({ type: 'checkout:ready', version: 1 })],
    ['a number', 1],
    ['an array', ['checkout:ready', 1]],
    ['no version', { type: 'checkout:ready' }],
    ['an older version', { type: 'checkout:ready', version: 0 }],
    ['a newer version', { type: 'checkout:ready', version: 2 }],
    ['the version as a string', { type: 'checkout:ready', version: '1' }],
    ['an unknown type', { type: 'checkout:paid', version: 1 }],
    ['another library’s message', { type: 'webpackOk', version: 1 }],
    ['a resize without height', { type: 'checkout:resize', version: 1 }],
    ['a negative height', { type: 'checkout:resize', version: 1, height: -1 }],
    ['a NaN height', { type: 'checkout:resize', version: 1, height: Number.NaN }],
    ['an infinite height', { type: 'checkout:resize', version: 1, height: Number.POSITIVE_INFINITY }],
    ['an absurd height', { type: 'checkout:resize', version: 1, height: 1e6 }],
    ['a height as a string', { type: 'checkout:resize', version: 1, height: '600px' }],
    ['completed without transaction_id', { ...completed, transaction_id: undefined }],
    ['completed with an unknown status', { ...completed, status: 'paid' }],
    ['completed with a numeric order_id', { ...completed, order_id: 7 }],
    ['completed without order_id', { ...completed, order_id: undefined }],
    ['completed with a non-string redirect', { ...completed, redirect: { href: 'https://x' } }],
    ['an error without a message', { type: 'checkout:error', version: 1, code: 'x' }],
    ['the page-to-frame focus-last (never accepted by the page)', { type: 'checkout:focus-last', version: 1 }],
    ['the Escape older loaders closed their overlay on (this one closes on checkout:close)', { type: 'checkout:escape', version: 1 }],
  ])('rejects %s', (_, data) => {
    expect(parseMessage(data)).toBeNull();
  });

  it('rounds the height up so the last pixel row is never clipped', () => {
    expect(parseMessage({ type: 'checkout:resize', version: 1, height: 300.2 })).toMatchObject({ height: 301 });
  });

  it('treats a missing redirect as null', () => {
    const { redirect: _, ...rest } = completed;
    expect(parseMessage(rest)).toMatchObject({ redirect: null });
  });

  it('passes on only protocol fields, never anything else the frame sent', () => {
    const parsed = parseMessage({ ...completed, card_number: '4242424242424242', cvc: '123' });
    expect(parsed).toEqual(completed);
    expect(parsed).not.toBe(completed);
  });
});

describe('acceptParentMessage (the frame reading the page)', () => {
  const SHOP = 'https://shop.example';
  const parentWindow = { name: 'window.parent' };
  const sibling = { name: 'another frame of the shop origin' };
  const parent = { origin: SHOP, source: parentWindow };
  const focusLast = { type: 'checkout:focus-last', version: PROTOCOL_VERSION };

  it('accepts focus-last from the parent window at the parent origin, as a fresh object', () => {
    const data = { ...focusLast, extra: 'dropped' };
    const accepted = acceptParentMessage({ origin: SHOP, source: parentWindow, data }, parent);
    expect(accepted).toEqual(focusLast);
    expect(accepted).not.toBe(data);
  });

  it.each([
    ['another origin', { origin: 'https://evil.example', source: parentWindow }],
    ['a look-alike origin', { origin: 'https://shop.example.evil.example', source: parentWindow }],
    ['the origin with another port', { origin: 'https://shop.example:444', source: parentWindow }],
    ['the checkout origin (the frame itself or a sibling)', { origin: CHECKOUT, source: checkoutFrame }],
    ['another window of the parent origin', { origin: SHOP, source: sibling }],
    ['no source window', { origin: SHOP, source: null }],
  ])('drops focus-last from %s', (_, from) => {
    expect(acceptParentMessage({ ...from, data: focusLast }, parent)).toBeNull();
  });

  it('drops everything when not framed (expected source null)', () => {
    expect(acceptParentMessage({ origin: SHOP, source: null, data: focusLast }, { origin: SHOP, source: null })).toBeNull();
  });

  it.each([
    ['null', null],
    ['a string', 'checkout:focus-last'],
    ['a JSON string', JSON.stringify(focusLast)],
    ['no version', { type: 'checkout:focus-last' }],
    ['a newer version', { ...focusLast, version: 2 }],
    ['the version as a string', { ...focusLast, version: '1' }],
    ['an unknown type', { type: 'checkout:focus-first', version: 1 }],
    ['a frame-to-page type', { type: 'checkout:completed', version: 1 }],
  ])('drops %s from the parent', (_, data) => {
    expect(acceptParentMessage({ origin: SHOP, source: parentWindow, data }, parent)).toBeNull();
  });
});
