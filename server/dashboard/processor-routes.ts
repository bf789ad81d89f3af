import type { IRouter, Request, Response } from 'express';
import { z } from 'zod';
import { baseUrlOf } from '../http/route';
import { processorChangeInput, processorInput } from '../payments/processor-input';
import { changeProcessor, connectProcessor, disconnectProcessor, PROCESSOR_GATEWAY_IDS, type ProcessorOutcome, processorWebhookUrl } from '../payments/processors';
import { REDSYS_BIZUM_ID, REDSYS_CARD_ID } from '../payments/redsys/gateway';
import { STRIPE_CARD_ID } from '../payments/stripe/gateway';
import type { ProcessorType } from '../store/schema';
import { getProcessor, listProcessors, type StoredProcessor } from '../store/processors';
import { zodErrors } from '../http/problem';
import type { ActiveSession } from './accounts';
import type { DashboardKey } from './i18n';
import type { Kit } from './kit';
import { disconnectConfirmPage, type Errors, processorPage, processorsPage, type ProcessorNotice, type Refused, type ShownProcessor } from './processor-pages';

// /dashboard/processors/: the environment's own processor accounts (a Stripe account, a
// Redsys terminal), for owners only, like its API keys. Connecting, replacing rotated keys
// and disconnecting go through the use cases the API calls (payments/processors.ts) with
// the API's own field rules (payments/processor-input.ts, redsys-input.ts): the form's
// fields are read into the API's input and parsed by its schema, so a refusal names the
// same fields; the key's mode against the environment's (Redsys's published test terminal
// in live), one check at the processor, one processor of a type. The audit log records
// each change with the key's last four characters, never a key.

const ID = /^[0-9a-f-]{36}$/;
const BASE = '/dashboard/processors/';
const doneQuery = z.object({ done: z.enum(['connected', 'saved', 'disconnected']) });
const deleteForm = z.object({ confirm: z.literal('yes').optional() });
const KEY_FIELDS = ['secret_key', 'publishable_key', 'webhook_secret'] as const;
/** A Redsys terminal's form: what POST /v1/processor/ with type redsys takes. */
const REDSYS_FIELDS = ['merchant_code', 'terminal', 'secret_key', 'signature_version'] as const;

const textOf = (raw: unknown) => (typeof raw === 'string' ? raw : '');
/** The statement descriptor as typed: blank is none (null), as in the API. */
const descriptorOf = (body: Record<string, unknown>) => (textOf(body.statement_descriptor).trim() === '' ? null : textOf(body.statement_descriptor));

/** The API's input from a connect form, by its type; a field left out is the API's own refusal. */
function connectInput(body: Record<string, unknown>): unknown {
  const type = textOf(body.type);
  if (type === 'redsys') return { type, ...Object.fromEntries(REDSYS_FIELDS.map((f) => [f, textOf(body[f]).trim()])) };
  return { type, ...Object.fromEntries(KEY_FIELDS.map((f) => [f, textOf(body[f]).trim()])), statement_descriptor: descriptorOf(body) };
}

/** The fields typed in (a key left empty is kept). */
const typedIn = (body: Record<string, unknown>, fields: readonly string[]) => Object.fromEntries(fields.flatMap((f) => (textOf(body[f]).trim() === '' ? [] : [[f, textOf(body[f]).trim()]])));

/** The API's change from the rotation form of a processor of this type: only what was typed or chosen; Stripe's descriptor as it stands in the form. */
function changeInput(type: ProcessorType, body: Record<string, unknown>): unknown {
  if (type === 'redsys') return typedIn(body, ['secret_key', 'signature_version']);
  return { ...typedIn(body, KEY_FIELDS), statement_descriptor: descriptorOf(body) };
}

type Problem = Exclude<ProcessorOutcome, { ok: true }>['problem'];
const PROBLEM_STATUS: Record<Problem, number> = { invalid: 400, taken: 409, unreachable: 502, urls_in_live: 409, changed: 409 };
/** What a refusal says, in the words of the processor it concerns. */
const PROBLEM_TEXT: Record<ProcessorType, Record<Problem, DashboardKey>> = {
  stripe: { invalid: 'proc.invalid', taken: 'proc.taken', unreachable: 'proc.unreachable', urls_in_live: 'proc.urlsInLive', changed: 'proc.changedMeanwhile' },
  redsys: { invalid: 'proc.invalid', taken: 'proc.redsys.taken', unreachable: 'proc.redsys.unreachable', urls_in_live: 'proc.redsys.urlsInLive', changed: 'proc.changedMeanwhile' },
};
/** Each gateway a processor brings, by the name a merchant knows it by. */
const GATEWAY_NAMES: Record<string, DashboardKey> = { [STRIPE_CARD_ID]: 'proc.gw.card', [REDSYS_CARD_ID]: 'proc.gw.card', [REDSYS_BIZUM_ID]: 'proc.gw.bizum' };

const logged = (p: StoredProcessor) => ({ id: p.id, type: p.type, secret_key_last4: p.secret_key_last4 });

export function processorRoutes(router: IRouter, kit: Kit): void {
  const { db, deps, forms, page, action, send } = kit;
  const envOf = (s: ActiveSession) => ({ id: s.current.environment_id, live: s.current.environment_mode === 'live' });
  const shownOf = (req: Request) => (p: StoredProcessor): ShownProcessor => ({
    processor: p,
    webhookUrl: processorWebhookUrl(baseUrlOf(req, deps), p.id),
    gateways: PROCESSOR_GATEWAY_IDS[p.type].map((id) => ({ id, name: kit.textOf(req).t(GATEWAY_NAMES[id]!) })),
  });
  const find = (s: ActiveSession, id: string) => (ID.test(id) ? getProcessor(db, s.current.environment_id, id) : Promise.resolve(undefined));
  const done = (req: Request): ProcessorNotice | undefined => {
    const parsed = doneQuery.safeParse(req.query);
    return parsed.success ? parsed.data.done : undefined;
  };
  /** The list page; after a refused connect, why, under the form of its type, with what was typed back except keys. */
  async function list(req: Request, res: Response, s: ActiveSession, status = 200, refused?: Refused) {
    // An environment has one processor per type: one page holds them all.
    const { rows } = await listProcessors(db, s.current.environment_id, { page: 1, page_size: 100 });
    send(res, status, processorsPage({ text: kit.textOf(req), session: s, shown: rows.map(shownOf(req)), refused, done: done(req) }));
  }
  /** What a refused outcome shows: the fields at fault, or one message in the words of its processor. */
  const refusal = (req: Request, type: ProcessorType, outcome: Exclude<ProcessorOutcome, { ok: true }>) => {
    const status = PROBLEM_STATUS[outcome.problem];
    return { status, errors: outcome.problem === 'invalid' ? outcome.errors : [], message: outcome.problem === 'invalid' ? undefined : kit.textOf(req).t(PROBLEM_TEXT[type][outcome.problem]) };
  };

  router.get('/processors/', page('owner', (req, res, s) => list(req, res, s)));

  router.post('/processors/', forms, action('owner', async (req, res, s) => {
    const body = req.body as Record<string, unknown>;
    const type: ProcessorType = body.type === 'redsys' ? 'redsys' : 'stripe';
    // What the form shows again: never a key.
    const typed = { descriptor: textOf(body.statement_descriptor), merchantCode: textOf(body.merchant_code), terminal: textOf(body.terminal), signatureVersion: textOf(body.signature_version) };
    const parsed = processorInput.safeParse(connectInput(body));
    if (!parsed.success) return list(req, res, s, 400, { type, errors: zodErrors(parsed.error), typed });
    const outcome = await connectProcessor(deps, envOf(s), parsed.data);
    if (!outcome.ok) {
      const { status, ...why } = refusal(req, type, outcome);
      return list(req, res, s, status, { type, ...why, typed });
    }
    await kit.audit(req, s, 'processor_connected', logged(outcome.processor));
    res.redirect(303, `${BASE}${outcome.processor.id}/?done=connected`);
  }));

  processorPages(router, kit, { find, shownOf, done, refusal, envOf });
}

type Helpers = {
  find: (s: ActiveSession, id: string) => Promise<StoredProcessor | undefined>;
  shownOf: (req: Request) => (p: StoredProcessor) => ShownProcessor;
  done: (req: Request) => ProcessorNotice | undefined;
  refusal: (req: Request, type: ProcessorType, outcome: Exclude<ProcessorOutcome, { ok: true }>) => { status: number; errors: Errors; message?: string };
  envOf: (s: ActiveSession) => { id: string; live: boolean };
};

/** One processor's page, its rotation and its disconnect (confirmed once more). */
function processorPages(router: IRouter, kit: Kit, h: Helpers): void {
  const { deps, forms, page, action, send, notFound, textOf: text } = kit;
  const show = async (req: Request, res: Response, s: ActiveSession, status = 200, refused?: { errors: Errors; message?: string }) => {
    const processor = await h.find(s, String(req.params.id));
    if (!processor) return notFound(req, res);
    send(res, status, processorPage({ text: text(req), session: s, shown: h.shownOf(req)(processor), errors: refused?.errors ?? [], message: refused?.message, done: refused ? undefined : h.done(req) }));
  };

  router.get('/processors/:id/', page('owner', (req, res, s) => show(req, res, s)));

  router.post('/processors/:id/', forms, action('owner', async (req, res, s) => {
    const id = String(req.params.id);
    const processor = await h.find(s, id);
    if (!processor) return notFound(req, res);
    const parsed = processorChangeInput.safeParse(changeInput(processor.type, req.body as Record<string, unknown>));
    if (!parsed.success) return show(req, res, s, 400, { errors: zodErrors(parsed.error) });
    const outcome = await changeProcessor(deps, h.envOf(s), id, parsed.data);
    if (!outcome) return notFound(req, res);
    if (!outcome.ok) {
      const { status, ...why } = h.refusal(req, processor.type, outcome);
      return show(req, res, s, status, why);
    }
    await kit.audit(req, s, 'processor_changed', logged(outcome.processor));
    res.redirect(303, `${BASE}${id}/?done=saved`);
  }));

  router.post('/processors/:id/delete/', forms, action('owner', async (req, res, s) => {
    const processor = await h.find(s, String(req.params.id));
    if (!processor) return notFound(req, res);
    const form = deleteForm.safeParse(req.body);
    if (!form.success || form.data.confirm !== 'yes') return send(res, 200, disconnectConfirmPage({ text: text(req), session: s, processor }));
    if (await disconnectProcessor(deps, s.current.environment_id, processor.id)) await kit.audit(req, s, 'processor_disconnected', logged(processor));
    res.redirect(303, `${BASE}?done=disconnected`);
  }));
}
