import { SUFFIX_MAX } from '../payments/processor-input';
import { SIGNATURE_VERSIONS } from '../payments/redsys/signature';
import type { StoredProcessor } from '../store/processors';
import type { ProcessorType } from '../store/schema';
import type { DashboardKey, DashboardText } from './i18n';
import { Csrf, renderPage } from './layout';
import { Notice } from './list-parts';
import type { Signed } from './sale-pages';

// Processors: the environment's own processor accounts (a Stripe account, a Redsys
// terminal), owners only. The list with the form that connects each type not connected yet,
// one processor's page with its facts (its gateways, the URL to register for its events),
// the form that replaces a rotated key and the disconnect button, and the confirmation of
// a disconnect. Keys are typed into password fields and never drawn back into a page: a
// refused form keeps what is not a key (Stripe's descriptor, Redsys's merchant code,
// terminal and signature version).

export type Errors = { path: string; message: string }[];
export type ProcessorNotice = 'connected' | 'saved' | 'disconnected';

const BASE = '/dashboard/processors/';
const processorUrl = (id: string) => `${BASE}${id}/`;

/** What a processor's page shows besides the row: its gateways and where its webhooks go. */
export interface ShownProcessor {
  processor: StoredProcessor;
  webhookUrl: string;
  gateways: readonly { id: string; name: string }[];
}

/** A connect form refused: its type, why, and what was typed that is not a key. */
export interface Refused {
  type: ProcessorType;
  errors: Errors;
  message?: string;
  typed: { descriptor: string; merchantCode: string; terminal: string; signatureVersion: string };
}

const FIELD_KEYS: Record<ProcessorType, Record<string, DashboardKey>> = {
  stripe: { type: 'proc.type', secret_key: 'proc.secretKey', publishable_key: 'proc.publishableKey', webhook_secret: 'proc.webhookSecret', statement_descriptor: 'proc.descriptor' },
  redsys: { type: 'proc.type', merchant_code: 'proc.redsys.merchantCode', terminal: 'proc.redsys.terminal', secret_key: 'proc.redsys.key', signature_version: 'proc.redsys.version' },
};
const fieldLabel = (text: DashboardText, type: ProcessorType, path: string) => {
  const key = FIELD_KEYS[type][path.split('.')[0]!];
  return key ? text.t(key) : path;
};

/** Why nothing was saved: each field at fault, or one message (the processor unreachable, one of a type). */
function Problems({ text, type, errors, message }: { text: DashboardText; type: ProcessorType; errors: Errors; message?: string }) {
  if (!errors.length && !message) return null;
  return (
    <div class="notice error" role="alert">
      <p>{message ?? text.t('proc.invalid')}</p>
      {errors.length > 0 && (
        <ul>
          {errors.map((e, i) => (
            <li key={i}>{`${fieldLabel(text, type, e.path)}: ${e.message}`}</li>
          ))}
        </ul>
      )}
    </div>
  );
}

const doneNotice = (text: DashboardText, done: ProcessorNotice | undefined, type?: ProcessorType) =>
  done && { text: text.t(type === 'redsys' && done === 'connected' ? 'proc.redsys.done.connected' : `proc.done.${done}`), error: false };

type FieldProps = { text: DashboardText; id: string; name: string; label: DashboardKey; hint: DashboardKey; required: boolean; errors: Errors };
const invalidIn = (errors: Errors, name: string) => (errors.some((e) => e.path.split('.')[0] === name) ? ('true' as const) : undefined);

/** A key's field: a password input, never filled in from what was sent. */
function KeyField({ text, id, name, label, hint, required, errors }: FieldProps) {
  return (
    <div class="field">
      <label for={id}>{text.t(label)}</label>
      <input id={id} name={name} type="password" required={required} autocomplete="off" spellcheck={false} aria-invalid={invalidIn(errors, name)} aria-describedby={`${id}-hint`} />
      <p class="hint" id={`${id}-hint`}>
        {text.t(hint)}
      </p>
    </div>
  );
}

/** A field that is not a key: shown again as typed after a refusal. */
function TextField({ text, id, name, label, hint, required, errors, value, maxLength }: FieldProps & { value: string; maxLength: number }) {
  return (
    <div class="field">
      <label for={id}>{text.t(label)}</label>
      <input id={id} name={name} type="text" inputMode="numeric" required={required} maxLength={maxLength} value={value} autocomplete="off" spellcheck={false} aria-invalid={invalidIn(errors, name)} aria-describedby={`${id}-hint`} />
      <p class="hint" id={`${id}-hint`}>
        {text.t(hint)}
      </p>
    </div>
  );
}

/** The form that connects a Redsys terminal (`rotate`: the one that replaces its key or signature version, each optional). */
function RedsysForm(p: Signed & { action: string; errors: Errors; typed?: Refused['typed']; rotate: boolean }) {
  const { text } = p;
  const { t } = text;
  const prefix = p.rotate ? 'rs-rot' : 'rs-new';
  const chosen = p.typed?.signatureVersion ?? '';
  return (
    <form method="post" action={p.action} class="card">
      <Csrf token={p.session.csrf} />
      {!p.rotate && (
        <>
          <input type="hidden" name="type" value="redsys" />
          <TextField text={text} id={`${prefix}-merchant`} name="merchant_code" label="proc.redsys.merchantCode" hint="proc.redsys.merchantCodeHint" required errors={p.errors} value={p.typed?.merchantCode ?? ''} maxLength={9} />
          <TextField text={text} id={`${prefix}-terminal`} name="terminal" label="proc.redsys.terminal" hint="proc.redsys.terminalHint" required errors={p.errors} value={p.typed?.terminal ?? ''} maxLength={3} />
        </>
      )}
      <KeyField text={text} id={`${prefix}-key`} name="secret_key" label="proc.redsys.key" hint={p.rotate ? 'proc.keepHint' : 'proc.redsys.keyHint'} required={!p.rotate} errors={p.errors} />
      <div class="field">
        <label for={`${prefix}-version`}>{t('proc.redsys.version')}</label>
        <select id={`${prefix}-version`} name="signature_version" aria-invalid={invalidIn(p.errors, 'signature_version')} aria-describedby={`${prefix}-version-hint`}>
          {p.rotate && <option value="">{t('proc.redsys.versionKeep')}</option>}
          {SIGNATURE_VERSIONS.map((v) => (
            <option key={v} value={v} selected={chosen === v}>
              {v}
            </option>
          ))}
        </select>
        <p class="hint" id={`${prefix}-version-hint`}>
          {t('proc.redsys.versionHint')}
        </p>
      </div>
      <button type="submit" class="primary">
        {p.rotate ? t('proc.save') : t('proc.redsys.connect')}
      </button>
    </form>
  );
}

/** The form that connects Stripe (`rotate`: the one that replaces what is sent, every field optional). */
function KeysForm(p: Signed & { action: string; errors: Errors; descriptor: string; rotate: boolean }) {
  const { text } = p;
  const { t } = text;
  const prefix = p.rotate ? 'rot' : 'new';
  const invalid = p.errors.some((e) => e.path === 'statement_descriptor') ? ('true' as const) : undefined;
  return (
    <form method="post" action={p.action} class="card">
      <Csrf token={p.session.csrf} />
      {!p.rotate && <input type="hidden" name="type" value="stripe" />}
      <KeyField text={text} id={`${prefix}-secret`} name="secret_key" label="proc.secretKey" hint={p.rotate ? 'proc.keepHint' : 'proc.secretHint'} required={!p.rotate} errors={p.errors} />
      <KeyField text={text} id={`${prefix}-publishable`} name="publishable_key" label="proc.publishableKey" hint={p.rotate ? 'proc.keepHint' : 'proc.publishableHint'} required={!p.rotate} errors={p.errors} />
      <KeyField text={text} id={`${prefix}-webhook`} name="webhook_secret" label="proc.webhookSecret" hint={p.rotate ? 'proc.keepHint' : 'proc.webhookHint'} required={!p.rotate} errors={p.errors} />
      <div class="field">
        <label for={`${prefix}-descriptor`}>{t('proc.descriptor')}</label>
        <input id={`${prefix}-descriptor`} name="statement_descriptor" type="text" maxLength={SUFFIX_MAX} value={p.descriptor} autocomplete="off" aria-invalid={invalid} aria-describedby={`${prefix}-descriptor-hint`} />
        <p class="hint" id={`${prefix}-descriptor-hint`}>
          {t('proc.descriptorHint')}
        </p>
      </div>
      <button type="submit" class="primary">
        {p.rotate ? t('proc.save') : t('proc.connect')}
      </button>
    </form>
  );
}

function ProcessorTable({ text, shown }: { text: DashboardText; shown: ShownProcessor[] }) {
  const { t } = text;
  return (
    <div class="scroll" tabindex={0} role="region" aria-label={t('proc.title')}>
      <table>
        <thead>
          <tr>
            <th scope="col">{t('proc.type')}</th>
            <th scope="col">{t('proc.last4')}</th>
            <th scope="col">{t('proc.webhookUrl')}</th>
            <th scope="col">{t('proc.connected')}</th>
          </tr>
        </thead>
        <tbody>
          {shown.map(({ processor: p, webhookUrl }) => (
            <tr key={p.id} data-id={p.id}>
              <td>
                <a href={processorUrl(p.id)}>{t(`proc.name.${p.type}`)}</a>
              </td>
              <td>{`…${p.secret_key_last4}`}</td>
              <td class="url">{webhookUrl}</td>
              <td>{text.dateTime(p.created_at)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** The list, and the connect form of each type not connected yet (a refusal under its own form). */
export function processorsPage(p: Signed & { shown: ShownProcessor[]; refused?: Refused; done?: ProcessorNotice }): string {
  const { text } = p;
  const { t } = text;
  const connected = (type: ProcessorType) => p.shown.some((s) => s.processor.type === type);
  const refusedOf = (type: ProcessorType) => (p.refused?.type === type ? p.refused : undefined);
  const stripe = refusedOf('stripe');
  const redsys = refusedOf('redsys');
  return renderPage(
    { text, session: p.session, title: t('proc.title'), active: 'processors' },
    <>
      <Notice notice={doneNotice(text, p.done)} />
      <p>{t('proc.intro')}</p>
      {p.refused && connected(p.refused.type) && <Problems text={text} type={p.refused.type} errors={p.refused.errors} message={p.refused.message} />}
      {p.shown.length === 0 ? <p class="empty">{t('proc.none')}</p> : <ProcessorTable text={text} shown={p.shown} />}
      {!connected('stripe') && (
        <>
          <h2>{t('proc.connectTitle')}</h2>
          <p>{t(p.session.current.environment_mode === 'live' ? 'proc.liveKeys' : 'proc.testKeys')}</p>
          <Problems text={text} type="stripe" errors={stripe?.errors ?? []} message={stripe?.message} />
          <KeysForm {...p} action={BASE} errors={stripe?.errors ?? []} descriptor={stripe?.typed.descriptor ?? ''} rotate={false} />
        </>
      )}
      {!connected('redsys') && (
        <>
          <h2>{t('proc.redsys.connectTitle')}</h2>
          <p>{t('proc.redsys.intro')}</p>
          <Problems text={text} type="redsys" errors={redsys?.errors ?? []} message={redsys?.message} />
          <RedsysForm {...p} action={BASE} errors={redsys?.errors ?? []} typed={redsys?.typed} rotate={false} />
        </>
      )}
    </>,
  );
}

function Facts({ text, shown }: { text: DashboardText; shown: ShownProcessor }) {
  const { t } = text;
  const { processor: p } = shown;
  return (
    <dl class="facts">
      <dt>{t('proc.id')}</dt>
      <dd>{p.id}</dd>
      <dt>{t('proc.last4')}</dt>
      <dd data-testid="processor-last4">{`…${p.secret_key_last4}`}</dd>
      <dt>{t(p.type === 'redsys' ? 'proc.redsys.notificationUrl' : 'proc.webhookUrl')}</dt>
      <dd class="url" data-testid="processor-webhook-url">
        {shown.webhookUrl}
      </dd>
      <dt>{t('proc.gateways')}</dt>
      <dd data-testid="processor-gateways">{shown.gateways.map((g) => `${g.name} (${g.id})`).join(', ')}</dd>
      {p.type === 'stripe' && (
        <>
          <dt>{t('proc.descriptor')}</dt>
          <dd>{p.statement_descriptor ?? '—'}</dd>
        </>
      )}
      <dt>{t('proc.connected')}</dt>
      <dd>{text.dateTime(p.created_at)}</dd>
      <dt>{t('proc.changed')}</dt>
      <dd>{text.dateTime(p.updated_at)}</dd>
    </dl>
  );
}

/** One processor: its facts, where to register its webhooks, the rotation form, disconnecting. */
export function processorPage(p: Signed & { shown: ShownProcessor; errors: Errors; message?: string; done?: ProcessorNotice }): string {
  const { text, shown } = p;
  const { t } = text;
  const { id, type } = shown.processor;
  return renderPage(
    { text, session: p.session, title: t(`proc.name.${type}`), active: 'processors' },
    <>
      <p>
        <a href={BASE}>{t('proc.title')}</a>
      </p>
      <Notice notice={doneNotice(text, p.done, type)} />
      <Facts text={text} shown={shown} />
      <p>{t(type === 'redsys' ? 'proc.redsys.help' : 'proc.webhookHelp')}</p>
      <h2>{t('proc.rotateTitle')}</h2>
      <Problems text={text} type={type} errors={p.errors} message={p.message} />
      {type === 'redsys' ? (
        <RedsysForm {...p} action={processorUrl(id)} rotate={true} />
      ) : (
        <KeysForm {...p} action={processorUrl(id)} descriptor={shown.processor.statement_descriptor ?? ''} rotate={true} />
      )}
      <h2>{t('proc.disconnectTitle')}</h2>
      <p>{t('proc.disconnectHelp')}</p>
      <form method="post" action={`${processorUrl(id)}delete/`}>
        <Csrf token={p.session.csrf} />
        <button type="submit">{t('proc.disconnect')}</button>
      </form>
    </>,
  );
}

export function disconnectConfirmPage(p: Signed & { processor: StoredProcessor }): string {
  const { text, session, processor } = p;
  const { t } = text;
  return renderPage(
    { text, session, title: t(processor.type === 'redsys' ? 'proc.redsys.disconnectConfirmTitle' : 'proc.disconnectConfirmTitle'), active: 'processors' },
    <>
      <p>{t(processor.type === 'redsys' ? 'proc.redsys.disconnectConfirm' : 'proc.disconnectConfirm', { last4: processor.secret_key_last4 })}</p>
      <div class="row-actions">
        <form method="post" action={`${processorUrl(processor.id)}delete/`}>
          <Csrf token={session.csrf} />
          <input type="hidden" name="confirm" value="yes" />
          <button type="submit" class="primary">
            {t('proc.disconnectSubmit')}
          </button>
        </form>
        <a href={processorUrl(processor.id)}>{t('proc.keep')}</a>
      </div>
    </>,
  );
}
