import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createCheckoutModel, type CheckoutDeps } from '../../../widget/screen/model';
import { RETURN_AFTER_MS } from '../../../widget/screen/model-actions';
import { TransportError, type CheckoutOutcome, type CheckoutRequest } from '../../../widget/screen/transport';
import type { CheckoutView } from '../../../widget/screen/view';
import { CARD_GATEWAY, makeView, REDIRECT_GATEWAY, SERVER_NOW } from './fixtures';

const T0 = Date.parse(SERVER_NOW);
const VALID_CARD = { card_number: '4242 4242 4242 4242', card_expiry: '04/29', card_cvc: '123', card_name: 'Ada Lovelace' };

/** A controllable server: each submit waits until the test answers it. */
function fakeServer() {
  const requests: CheckoutRequest[] = [];
  let answer: (outcome: CheckoutOutcome) => void = () => {};
  let fail: (error: unknown) => void = () => {};
  const submit = vi.fn((request: CheckoutRequest) => {
    requests.push(request);
    return new Promise<CheckoutOutcome>((resolve, reject) => {
      answer = resolve;
      fail = reject;
    });
  });
  return { requests, submit, answer: (o: CheckoutOutcome) => answer(o), fail: (e: unknown) => fail(e) };
}

function setup(view: Partial<CheckoutView> = {}, deps: Partial<CheckoutDeps> = {}) {
  const server = fakeServer();
  const onRedirect = vi.fn();
  const model = createCheckoutModel(makeView(view), { submit: server.submit, onRedirect, now: () => Date.now(), ...deps });
  return { model, server, onRedirect };
}

function fill(model: ReturnType<typeof createCheckoutModel>, values: Record<string, string>) {
  for (const [name, value] of Object.entries(values)) model.setField(name, value);
}

beforeEach(() => {
  vi.useFakeTimers();
  vi.setSystemTime(T0);
});
afterEach(() => {
  vi.useRealTimers();
});

describe('paying', () => {
  it('asks for a payment method when none is chosen, without sending anything', async () => {
    const { model, server } = setup({ selectedGateway: null });
    await model.pay();
    expect(server.submit).not.toHaveBeenCalled();
    expect(model.fieldErrors.value).toEqual({ gateway: 'error.gatewayRequired' });
    expect(model.focusTarget.value).toMatchObject({ kind: 'field', name: 'gateway' });
    model.selectGateway(CARD_GATEWAY.id);
    expect(model.fieldErrors.value).toEqual({});
  });

  it('validates the fields first and focuses the first invalid one', async () => {
    const { model, server } = setup();
    fill(model, { ...VALID_CARD, card_number: '4242 4242 4242 4241', card_cvc: '' });
    await model.pay();
    expect(server.submit).not.toHaveBeenCalled();
    expect(model.fieldErrors.value).toEqual({ card_number: 'error.card.number.invalid', card_cvc: 'error.required' });
    expect(model.focusTarget.value).toMatchObject({ kind: 'field', name: 'card_number' });
    // Typing clears that field's error straight away.
    model.setField('card_number', '4242');
    expect(model.fieldErrors.value).toEqual({ card_cvc: 'error.required' });
  });

  it('says at once that a month cannot exist, while other errors wait for the customer to leave the field', () => {
    const { model } = setup();
    model.setField('card_expiry', '1');
    expect(model.fieldErrors.value).toEqual({});
    model.setField('card_expiry', '13 / ');
    expect(model.fieldErrors.value).toEqual({ card_expiry: 'error.card.expiry.month' });
    model.setField('card_expiry', '1');
    expect(model.fieldErrors.value).toEqual({});
    model.setField('card_number', '4242 4242');
    expect(model.fieldErrors.value).toEqual({});
  });

  it('sends the action, the gateway and its fields once, however often pay is pressed', async () => {
    const { model, server } = setup();
    fill(model, VALID_CARD);
    void model.pay();
    void model.pay();
    void model.cancel();
    expect(server.requests).toEqual([{ action: 'pay', gateway: CARD_GATEWAY.id, fields: VALID_CARD }]);
    expect(model.status.value).toBe('processing');
    expect(model.pending.value).toBe('pay');
  });

  it('sends no fields for a redirect gateway and reports a provider redirect', async () => {
    const { model, server, onRedirect } = setup({ selectedGateway: REDIRECT_GATEWAY.id });
    const done = model.pay();
    expect(server.requests).toEqual([{ action: 'pay', gateway: REDIRECT_GATEWAY.id, fields: {} }]);
    server.answer({ outcome: 'redirect', location: 'https://provider.example/approve' });
    await done;
    expect(onRedirect).toHaveBeenCalledWith('https://provider.example/approve', 'provider');
    // Still busy while the browser leaves: no second submission.
    expect(model.status.value).toBe('processing');
  });

  it('hands a completed payment redirect to onRedirect', async () => {
    const { model, server, onRedirect } = setup();
    fill(model, VALID_CARD);
    const done = model.pay();
    server.answer({ outcome: 'redirect', location: 'https://shop.example/thanks' });
    await done;
    expect(onRedirect).toHaveBeenCalledWith('https://shop.example/thanks', 'completed');
  });

  it('shows a completed payment’s confirmation for a moment before it goes back to the shop', async () => {
    const { model, server, onRedirect } = setup();
    fill(model, VALID_CARD);
    const done = model.pay();
    const paid = makeView({ status: 'paid', returnUrl: 'https://shop.example/thanks' });
    server.answer({ outcome: 'redirect', location: 'https://shop.example/thanks', kind: 'completed', view: paid });
    await done;
    expect(model.status.value).toBe('paid');
    expect(model.returningTo.value).toBe('https://shop.example/thanks');
    expect(model.focusTarget.value).toMatchObject({ kind: 'status' });
    expect(onRedirect).not.toHaveBeenCalled();
    await vi.advanceTimersByTimeAsync(RETURN_AFTER_MS - 1);
    expect(onRedirect).not.toHaveBeenCalled();
    await vi.advanceTimersByTimeAsync(1);
    expect(onRedirect).toHaveBeenCalledWith('https://shop.example/thanks', 'completed');
  });

  it('honours the kind the server gives', async () => {
    const { model, server, onRedirect } = setup();
    fill(model, VALID_CARD);
    const done = model.pay();
    server.answer({ outcome: 'redirect', location: '/pay/tok/3ds', kind: 'provider' });
    await done;
    expect(onRedirect).toHaveBeenCalledWith('/pay/tok/3ds', 'provider');
  });

  it('shows a declined view with its message, keeps the form usable and the typed values', async () => {
    const { model, server } = setup();
    fill(model, VALID_CARD);
    const done = model.pay();
    server.answer({ outcome: 'view', view: makeView({ status: 'declined', error: { message: 'error.declined', fields: {} } }) });
    await done;
    expect(model.status.value).toBe('declined');
    expect(model.message.value).toBe('error.declined');
    expect(model.pending.value).toBeNull();
    expect(model.payable.value).toBe(true);
    expect(model.values.value.card_number).toBe(VALID_CARD.card_number);
    // The alert says why (its role announces it); the card field is marked and takes the focus.
    expect(model.fieldErrors.value).toEqual({ card_number: 'error.card.declined' });
    expect(model.focusTarget.value).toMatchObject({ kind: 'field', name: 'card_number' });
    // Typing another number clears the mark.
    model.setField('card_number', '5555');
    expect(model.fieldErrors.value).toEqual({});
  });

  it('shows the server’s field errors', async () => {
    const { model, server } = setup();
    fill(model, VALID_CARD);
    const done = model.pay();
    server.answer({ outcome: 'view', view: makeView({ error: { message: '', fields: { card_expiry: 'error.card.expiry.past' } } }) });
    await done;
    expect(model.fieldErrors.value).toEqual({ card_expiry: 'error.card.expiry.past' });
    expect(model.focusTarget.value).toMatchObject({ kind: 'field', name: 'card_expiry' });
  });

  it('replaces the state with a paid view and forgets the card details', async () => {
    const { model, server } = setup();
    fill(model, VALID_CARD);
    const done = model.pay();
    const receipt = { saleId: 's1', amount: 8824, brand: 'visa', last4: '4242', paidAt: SERVER_NOW };
    server.answer({ outcome: 'view', view: makeView({ status: 'paid', receipt }) });
    await done;
    expect(model.status.value).toBe('paid');
    expect(model.view.value.receipt).toEqual(receipt);
    expect(model.values.value).toEqual({});
    expect(model.focusTarget.value).toMatchObject({ kind: 'status' });
  });

  it('says so on a network error and lets the customer try again', async () => {
    const { model, server } = setup();
    fill(model, VALID_CARD);
    const first = model.pay();
    server.fail(new TransportError('network'));
    await first;
    expect(model.message.value).toBe('error.network');
    expect(model.status.value).toBe('pending');
    void model.pay();
    expect(server.submit).toHaveBeenCalledTimes(2);
  });

  it('cancels without validating', async () => {
    const { model, server, onRedirect } = setup();
    const done = model.cancel();
    expect(server.requests).toEqual([{ action: 'cancel', gateway: CARD_GATEWAY.id, fields: {} }]);
    server.answer({ outcome: 'redirect', location: 'https://shop.example/cancelled' });
    await done;
    expect(onRedirect).toHaveBeenCalledWith('https://shop.example/cancelled', 'cancelled');
  });

  it('does nothing once the payment is closed', async () => {
    const { model, server } = setup({ status: 'paid' });
    await model.pay();
    await model.cancel();
    expect(server.submit).not.toHaveBeenCalled();
  });
});

describe('gateways and fields', () => {
  it('preselects from the view, or not at all', () => {
    expect(setup().model.gateway.value?.id).toBe(CARD_GATEWAY.id);
    expect(setup({ selectedGateway: null }).model.gateway.value).toBeNull();
  });

  it('judges a field on blur only once something was typed', () => {
    const { model } = setup();
    model.checkField('card_number');
    expect(model.fieldErrors.value).toEqual({});
    model.setField('card_number', '4242');
    model.checkField('card_number');
    expect(model.fieldErrors.value).toEqual({ card_number: 'error.card.number.length' });
  });

  it('keeps what the customer did before the script arrived', () => {
    const { model } = setup({ selectedGateway: null });
    model.restoreInputs(REDIRECT_GATEWAY.id, { card_name: 'Ada' });
    expect(model.gatewayId.value).toBe(REDIRECT_GATEWAY.id);
    expect(model.values.value).toEqual({ card_name: 'Ada' });
    model.restoreInputs('no-such-gateway', {});
    expect(model.gatewayId.value).toBe(REDIRECT_GATEWAY.id);
  });
});

describe('expiry', () => {
  it('counts down in the last ten minutes and expires on time while the page is open', () => {
    const { model } = setup({ expiresAt: new Date(T0 + 11 * 60_000).toISOString() });
    const stop = model.start({ timeZone: 'Europe/Madrid' });
    expect(model.timeZone.value).toBe('Europe/Madrid');
    expect(model.showCountdown.value).toBe(false);
    vi.advanceTimersByTime(60_000 + 1000);
    expect(model.showCountdown.value).toBe(true);
    expect(model.minutesLeft.value).toBe(10);
    vi.advanceTimersByTime(5 * 60_000);
    expect(model.minutesLeft.value).toBe(5);
    vi.advanceTimersByTime(5 * 60_000);
    expect(model.status.value).toBe('expired');
    expect(model.focusTarget.value).toMatchObject({ kind: 'status' });
    stop();
  });

  it('uses the server clock, not a skewed client clock', () => {
    // The client clock runs an hour fast; the link expires 30 minutes after serverNow.
    let clientNow = T0 + 3_600_000;
    const { model } = setup({ expiresAt: new Date(T0 + 30 * 60_000).toISOString() }, { now: () => clientNow });
    const stop = model.start();
    expect(model.status.value).toBe('pending');
    expect(model.remainingMs.value).toBe(30 * 60_000);
    clientNow += 25 * 60_000;
    vi.advanceTimersByTime(25 * 60_000);
    expect(model.showCountdown.value).toBe(true);
    expect(model.remainingMs.value).toBeLessThanOrEqual(5 * 60_000);
    stop();
  });

  it('does not post once the moment has passed', async () => {
    const { model, server } = setup({ expiresAt: new Date(T0 + 1000).toISOString() });
    fill(model, VALID_CARD);
    vi.setSystemTime(T0 + 2000);
    await model.pay();
    expect(server.submit).not.toHaveBeenCalled();
    expect(model.status.value).toBe('expired');
  });

  it('stops its timer when stopped', () => {
    const { model } = setup({ expiresAt: new Date(T0 + 60_000).toISOString() });
    const stop = model.start();
    stop();
    vi.advanceTimersByTime(120_000);
    expect(model.status.value).toBe('pending');
  });
});

describe('focus after a result', () => {
  it('goes to the result, not to an error that the result panel does not show', async () => {
    const { model, server } = setup({ status: 'declined', error: { message: 'error.declined', fields: {} } });
    fill(model, VALID_CARD);
    const done = model.pay();
    const receipt = { saleId: 's1', amount: 8824, brand: 'visa', last4: '4242', paidAt: SERVER_NOW };
    server.answer({ outcome: 'view', view: makeView({ status: 'paid', receipt, error: { message: 'error.declined', fields: {} } }) });
    await done;
    expect(model.focusTarget.value).toMatchObject({ kind: 'status' });
  });
});

describe('cancelling asks first', () => {
  it('the first step sends nothing and asks; keep paying goes back; the second step cancels', async () => {
    const { model, server } = setup();
    model.askCancel();
    expect(server.submit).not.toHaveBeenCalled();
    expect(model.confirmingCancel.value).toBe(true);
    expect(model.focusTarget.value).toMatchObject({ kind: 'confirm' });
    model.keepPaying();
    expect(model.confirmingCancel.value).toBe(false);
    expect(model.focusTarget.value).toMatchObject({ kind: 'cancel' });
    model.askCancel();
    void model.cancel();
    expect(server.requests).toEqual([{ action: 'cancel', gateway: CARD_GATEWAY.id, fields: {} }]);
  });

  it('starts on the question when the server (no-JS post) asked it', () => {
    const { model } = setup({ confirmCancel: true });
    expect(model.confirmingCancel.value).toBe(true);
  });
});

describe('after too many attempts', () => {
  it('keeps Pay locked until the retry time, then lets it send', async () => {
    const retryAt = new Date(T0 + 5 * 60_000).toISOString();
    const { model, server } = setup({ retryAt, error: { message: 'error.tooManyAttempts', fields: {} } });
    fill(model, VALID_CARD);
    const stop = model.start();
    expect(model.locked.value).toBe(true);
    await model.pay();
    expect(server.submit).not.toHaveBeenCalled();
    vi.advanceTimersByTime(5 * 60_000);
    expect(model.locked.value).toBe(false);
    void model.pay();
    expect(server.requests).toHaveLength(1);
    stop();
  });
});

describe('a failed post without JavaScript', () => {
  it('fills the fields the server sent back', () => {
    const { model } = setup({ values: { card_name: 'Ada', card_expiry: '12 / 34' } });
    expect(model.values.value).toEqual({ card_name: 'Ada', card_expiry: '12 / 34' });
  });
});

describe('a challenged payment', () => {
  const CHALLENGE = '/pay/tok/challenge/0190f5a0-0000-7000-8000-00000000abcd/';

  async function challenged() {
    const answers: { url: string; answer: string }[] = [];
    let reply: (outcome: CheckoutOutcome) => void = () => {};
    const answer = vi.fn((url: string, given: string) => {
      answers.push({ url, answer: given });
      return new Promise<CheckoutOutcome>((resolve) => (reply = resolve));
    });
    const { model, server, onRedirect } = setup({}, { answer });
    fill(model, VALID_CARD);
    const paying = model.pay();
    server.answer({ outcome: 'redirect', location: CHALLENGE, kind: 'challenge' });
    await paying;
    return { model, onRedirect, answers, reply: (o: CheckoutOutcome) => reply(o) };
  }

  it('shows the challenge instead of leaving the page, and nothing is pending meanwhile', async () => {
    const { model, onRedirect } = await challenged();
    expect(model.challenge.value).toBe(CHALLENGE);
    expect(model.pending.value).toBeNull();
    expect(onRedirect).not.toHaveBeenCalled();
  });

  it('sends the answer to the challenge\'s URL once, closes it at once, and shows what came of it', async () => {
    const { model, answers, reply } = await challenged();
    const answering = model.answerChallenge('failed');
    expect(model.challenge.value).toBeNull();
    expect(model.pending.value).toBe('pay');
    await model.answerChallenge('completed');
    expect(answers).toEqual([{ url: CHALLENGE, answer: 'failed' }]);
    reply({ outcome: 'view', view: makeView({ status: 'declined', error: { message: 'error.authenticationFailed', fields: {} } }) });
    await answering;
    expect(model.pending.value).toBeNull();
    expect(model.message.value).toBe('error.authenticationFailed');
    expect(model.focusTarget.value).toMatchObject({ kind: 'field', name: 'card_number' });
  });
});
