import type { IRouter, Request, Response } from 'express';
import { cardFieldsIn } from '../domain/card-fields';
import { scopedDeps } from '../deps';
import { validateFields } from '../../widget/fields/card';
import type { Gateway } from '../payments/gateway';
import { testCardErrors } from '../payments/live';
import { type PaymentOutcome, payTransaction } from '../payments/pay';
import { leaveOpenRedirects } from '../payments/redirect';
import { ApiError, sendProblem, setDocsOrigin } from '../http/problem';
import { baseUrlOf } from '../http/route';
import { failedAttemptsWait } from '../store/payments';
import { cancelTransaction } from '../payments/transaction-endings';
import { formBody } from './form-body';
import { readHostedPost, refusedView } from './hosted-page';
import { cardLimit } from './limits';
import { finished, type Outcome, settled, stateConflict, tooManyAttempts } from './outcome';
import { type CheckoutContext, type Page, stepUrl } from './page';
import { loadPage, notFound, reload, respond } from './page-view';
import { fromForm, payRequest, type PayRequest } from './pay-request';
import { keptValues, paymentGateways } from './view-model';

// POST /pay/{token}/: the customer pays or cancels, from the hydrated screen (JSON) or the
// form without JavaScript, and sees what came of it.

/**
 * Card details posted for a redirect gateway, whose card entry is the processor's own:
 * a 400 with nothing recorded and nothing sent, never silently dropped. The hydrated
 * screen never sends them, so a JSON post that does is a client's mistake, answered as a
 * problem naming the fields; without JavaScript, the page again with the error.
 */
async function refuseCardFields(ctx: CheckoutContext, req: Request, res: Response, page: Page, gateway: Gateway, names: string[]): Promise<void> {
  if (!page.wantsJson) return respond(ctx, res, page, { kind: 'view', status: 400, chosenGateway: gateway.id, error: { message: 'error.cardFieldsRefused', fields: {} } });
  setDocsOrigin(res, baseUrlOf(req, ctx.deps));
  const message = 'is not taken by this payment method: the card is entered in the processor’s own fields or page';
  sendProblem(res, new ApiError('invalid_request', `${gateway.name} takes no card details here`, names.map((name) => ({ path: `fields.${name}`, message }))));
}

export function payRoutes(router: IRouter, ctx: CheckoutContext): void {
  const { deps, db } = ctx;
  const limitCard = cardLimit(deps);

  async function pay(page: Page, input: PayRequest, gateway: Gateway, base: string): Promise<Outcome> {
    const now = deps.now();
    const row = page.row;
    // Each call's own return route, in the page's embed mode (provider-routes.ts).
    const returnUrl = (reference: string) => `${base}${stepUrl(page, `return/${reference}/`)}`;
    const fromPage = { returnUrl, language: page.language };
    if (gateway.flow === 'redirect') {
      // The hydrated screen with the processor's fields mounted asks for them (`hosted-fields`: the gateway refuses anything else sent); otherwise the processor's page, by redirect. Card details were refused before (refuseCardFields).
      const fields: Record<string, string> = gateway.hostedFields && page.wantsJson && input.fields.hosted_fields === '1' ? input.fields : {};
      return answered(page, gateway, await payTransaction(scopedDeps(deps, page), { transaction: row, gateway, fields, page: fromPage }));
    }
    const fieldErrors = { ...validateFields(gateway.fields, input.fields, now), ...testCardErrors(!page.merchant.sandbox, input.fields) };
    if (Object.keys(fieldErrors).length) {
      return { kind: 'view', status: 400, chosenGateway: gateway.id, error: { message: 'error.fieldsInvalid', fields: fieldErrors } };
    }
    const limited = await limitCard(gateway, input.fields);
    if (limited > 0) return tooManyAttempts(now, limited, gateway.id);
    return answered(page, gateway, await payTransaction(scopedDeps(deps, page), { transaction: row, gateway, fields: input.fields, page: fromPage }));
  }

  async function answered(page: Page, gateway: Gateway, outcome: PaymentOutcome): Promise<Outcome> {
    const now = deps.now();
    const { row } = page;
    if (outcome.kind === 'not_claimed') {
      const wait = await failedAttemptsWait(db, row.id, now);
      if (wait > 0) return tooManyAttempts(now, wait, gateway.id);
      return stateConflict(ctx, page, gateway.id);
    }
    return settled(ctx, page, gateway, outcome);
  }

  router.post('/pay/:token/', formBody({ json: true }));

  router.post('/pay/:token/', async (req, res) => {
    const page = await loadPage(ctx, req);
    if (!page) return notFound(ctx, req, res);
    const read = await readHostedPost(ctx, req, page, payRequest, fromForm);
    if ('refused' in read) return respond(ctx, res, page, refusedView(read.refused));
    const { input } = read;
    if (page.row.status !== 'N' || Date.parse(page.row.expired_at) <= deps.now().getTime()) {
      return respond(ctx, res, page, await stateConflict(ctx, page, null));
    }
    if (input.action === 'cancel') {
      // One click must not end the payment: without JavaScript the page asks first.
      if (!page.wantsJson && input.confirm !== '1') return respond(ctx, res, page, { kind: 'view', status: 200, confirmCancel: true });
      const cancel = () => cancelTransaction(deps, page.row.id, deps.now());
      // A redirect the customer left open would hold the cancel too (payments/redirect.ts).
      const cancelled = (await cancel()) || ((await leaveOpenRedirects(scopedDeps(deps, page), page.row.id, page.row.environment_id)) && (await cancel()));
      if (!cancelled) return respond(ctx, res, page, await stateConflict(ctx, page, null));
      return respond(ctx, res, page, await finished(ctx, await reload(ctx, page), 'cancelled'));
    }
    const gateway = input.gateway ? paymentGateways(page.gateways, page.row, !page.merchant.sandbox).find((g) => g.id === input.gateway) : undefined;
    if (!gateway) {
      return respond(ctx, res, page, { kind: 'view', status: 400, error: { message: 'error.gatewayRequired', fields: { gateway: 'error.gatewayRequired' } } });
    }
    const card = gateway.flow === 'redirect' ? cardFieldsIn(input.fields) : [];
    if (card.length) return refuseCardFields(ctx, req, res, page, gateway, card);
    // Without JavaScript the card fields appear once their gateway is chosen: ask for them
    // before judging them.
    if (gateway.flow === 'form' && input.fieldsOf !== undefined && input.fieldsOf !== gateway.id) {
      return respond(ctx, res, page, { kind: 'view', status: 200, chosenGateway: gateway.id });
    }
    const outcome = await pay(page, input, gateway, baseUrlOf(req, deps));
    return respond(ctx, res, page, outcome.kind === 'view' ? { ...outcome, values: keptValues(gateway.fields, input.fields) } : outcome);
  });
}
