import type { Request, Response } from 'express';
import { PROTOCOL_VERSION } from '../../widget/embed/protocol';
import type { Message } from '../../widget/screen/components/MessageScreen';
import { type DocumentAssets, renderMessage } from '../../widget/screen/document';
import { getTranslator } from '../../widget/i18n/server';
import type { Language } from '../../widget/screen/view';
import { applyPageHeaders, newNonce } from './security';

// A frame the checkout will not fill (a token that names nothing, a page whose origin may
// not embed the payment) still answers the page that asked, so the merchant hears why
// instead of seeing an empty box: a page that says so, framable by that origin only, and
// one inline script that posts `checkout:error` to exactly that origin. It shows nothing
// of any transaction and has nothing to click, so letting that origin frame it gives away
// nothing but the refusal itself. A payment no method can pay (`no_payment_method`) is
// refused the same way, to the origin that may embed it.

export type RefusalCode = 'token_unknown' | 'origin_not_allowed' | 'no_payment_method';

const MESSAGES: Record<RefusalCode, Message> = { token_unknown: 'notFound', origin_not_allowed: 'notEmbeddable', no_payment_method: 'unpayable' };

/** The origin of an embed request (`?embed=1&origin=…`): an exact http(s) origin, else null. */
export function embedOrigin(req: Request): string | null {
  const { embed, origin } = req.query;
  if (embed !== '1' || typeof origin !== 'string') return null;
  try {
    const url = new URL(origin);
    return (url.protocol === 'https:' || url.protocol === 'http:') && url.origin === origin ? origin : null;
  } catch {
    return null;
  }
}

/** JSON inside a <script>: no `<` can close it, and the line separators are escaped. */
const scriptJson = (value: unknown) => JSON.stringify(value).replace(/</g, '\\u003c').replace(/\u2028/g, '\\u2028').replace(/\u2029/g, '\\u2029');

export function sendEmbedRefusal(res: Response, refusal: { origin: string; code: RefusalCode; language: Language; assets: DocumentAssets; status: number }): void {
  const { origin, code, language, status } = refusal;
  const nonce = newNonce();
  applyPageHeaders(res, { nonce, frameAncestors: [origin], formTargets: [] });
  const message = MESSAGES[code];
  const data = { type: 'checkout:error', version: PROTOCOL_VERSION, code, message: getTranslator(language).t(`${message}.title`) };
  const script = `<script nonce="${nonce}">parent!==window&&parent.postMessage(${scriptJson(data)},${scriptJson(origin)})</script>`;
  res.status(status).type('html').send(renderMessage({ language, nonce, assets: refusal.assets }, message, script));
}

/**
 * A page (payment, save-card, sign-up) asked to embed by an origin that may not: the
 * refusal instead of it (403, `origin_not_allowed`); true when it was sent.
 */
export function refusedEmbed(req: Request, res: Response, page: { embed: unknown; language: Language }, assets: DocumentAssets): boolean {
  const origin = page.embed ? null : embedOrigin(req);
  if (origin) sendEmbedRefusal(res, { origin, code: 'origin_not_allowed', language: page.language, assets, status: 403 });
  return origin !== null;
}
