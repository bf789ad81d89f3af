// Server-side entry: the complete HTML document for /pay/{token}/ and for the 404 page.
// The server must run it under a CSP with script-src 'nonce-…' and style-src 'self': so
// no inline styles or handlers here, only the nonced state and module scripts.
import type { VNode } from 'preact';
import { renderToString } from 'preact-render-to-string';
import type { Language } from '../i18n/language';
import { htmlLang } from '../i18n/language';
import type { Strings } from '../i18n/messages';
import { getStrings, getTranslator } from '../i18n/server';
import { CheckoutScreen } from './components/CheckoutScreen';
import type { BackLink } from './components/Chrome';
import { type Message, MessageScreen } from './components/MessageScreen';
import { escapeHtml } from './html';
import { createCheckoutModel } from './model';
import { clientStrings } from './client-strings';
import { SERVER_PARTS } from './components/server-parts';
import { APP_ELEMENT_ID, browserView, serializeState, STATE_ELEMENT_ID } from './state';
import type { CheckoutView } from './view';

export interface DocumentAssets {
  /** URLs of module scripts, e.g. ["/assets/client-3f2a.js"]. */
  scripts: string[];
  /** URLs of stylesheets, e.g. ["/assets/client-9b1c.css"]. */
  styles: string[];
}

export interface RenderDocumentOptions {
  view: CheckoutView;
  /** The per-response CSP nonce (base64), also put on the state script. */
  nonce: string;
  /** The page language's strings; defaults to locales/{view.language}.json. The browser gets those it may render (client-strings.ts). */
  strings?: Strings;
  assets: DocumentAssets;
  /** Defaults to the translated "Pay {merchant}". */
  title?: string;
}

export interface RenderNotFoundOptions {
  language: Language;
  nonce: string;
  assets: DocumentAssets;
  /** The way back to the shop, on a message about a payment (MessageScreen). */
  back?: BackLink;
}


interface ShellOptions {
  language: Language;
  title: string;
  styles: string[];
  body: string;
  /** Everything after the app element: state and scripts. */
  tail: string;
  embed: boolean;
}

function shell({ language, title, styles, body, tail, embed }: ShellOptions): string {
  const links = styles.map((href) => `<link rel="stylesheet" href="${escapeHtml(href)}">`).join('');
  return (
    '<!doctype html>' +
    `<html lang="${htmlLang(language)}"${embed ? ' class="embed"' : ''}>` +
    '<head>' +
    '<meta charset="utf-8">' +
    '<meta name="viewport" content="width=device-width, initial-scale=1">' +
    '<meta name="color-scheme" content="light dark">' +
    // The token is in the URL; the page must never send it onwards (also set as a header).
    '<meta name="referrer" content="no-referrer">' +
    '<meta name="robots" content="noindex, nofollow">' +
    '<link rel="icon" href="/favicon.svg" type="image/svg+xml">' +
    `<title>${escapeHtml(title)}</title>` +
    links +
    '</head>' +
    `<body><div id="${APP_ELEMENT_ID}">${body}</div>${tail}</body>` +
    '</html>'
  );
}

/** What changes between two responses showing the same view. */
export interface DocumentSlots {
  /** The response's CSP nonce. */
  nonce: string;
  /** The server's clock for the client's countdown, ISO 8601 (the state's view.serverNow). */
  serverNow: string;
}

/** A rendered document with its per-response values left open. */
export interface DocumentTemplate {
  /** Bytes it holds. */
  length: number;
  /** The document as UTF-8, ready to send: the rest was encoded once, at render time. */
  fill(slots: DocumentSlots): Buffer;
}

/**
 * Renders the document once for any number of responses: the server fills in each
 * response's nonce and clock. The markup must not depend on the clock beyond the view's
 * status (the caller's business: no countdown on screen, see COUNTDOWN_FROM_MS).
 */
export function documentTemplate({ view, strings, assets, title }: Omit<RenderDocumentOptions, 'nonce'>): DocumentTemplate {
  const i18n = getTranslator(view.language);
  const model = createCheckoutModel(view);
  const body = renderToString(<CheckoutScreen model={model} i18n={i18n} parts={SERVER_PARTS} />);
  // Random stand-ins, rendered where the values go: no merchant text can contain them.
  const mark = crypto.randomUUID();
  const NONCE = `nonce-${mark}`;
  const NOW = `now-${mark}`;
  const state = serializeState({
    view: { ...browserView(view), serverNow: NOW },
    strings: clientStrings(strings ?? getStrings(view.language), view),
  });
  const html = shell({
    language: view.language,
    title: title ?? i18n.t('page.title', { merchant: view.merchantName }),
    // The brand's colours after the page's own, so they win.
    styles: view.brand?.stylesheet ? [...assets.styles, view.brand.stylesheet] : assets.styles,
    body,
    embed: view.embed !== null,
    tail:
      `<script type="application/json" id="${STATE_ELEMENT_ID}" nonce="${NONCE}">${state}</script>` +
      moduleScripts(assets.scripts, NONCE),
  });
  const parts = html.split(new RegExp(`(${NONCE}|${NOW})`)).map((part) => (part === NONCE || part === NOW ? part : Buffer.from(part)));
  return {
    length: parts.reduce((n, part) => n + part.length, 0),
    fill({ nonce, serverNow }) {
      const values = { [NONCE]: Buffer.from(escapeHtml(nonce)), [NOW]: Buffer.from(JSON.stringify(serverNow).slice(1, -1)) };
      return Buffer.concat(parts.map((part) => (typeof part === 'string' ? values[part]! : part)));
    },
  };
}

export function renderDocument(options: RenderDocumentOptions): string {
  return documentTemplate(options).fill({ nonce: options.nonce, serverNow: options.view.serverNow }).toString();
}

function moduleScripts(scripts: string[], nonce: string): string {
  return scripts.map((src) => `<script type="module" nonce="${nonce}" src="${escapeHtml(src)}"></script>`).join('');
}

/**
 * A page that only says something (the unknown-token page, the rate-limit page). It needs
 * no script of the screen, so `assets.scripts` is ignored: only the stylesheet is linked.
 * `tail` (HTML after the content) is the embed refusal's one inline script.
 */
export function renderMessage({ language, assets, back }: RenderNotFoundOptions, message: Message, tail = ''): string {
  const i18n = getTranslator(language);
  return shell({
    language,
    title: i18n.t(`${message}.title`),
    styles: assets.styles,
    body: renderToString(<MessageScreen i18n={i18n} message={message} back={back} />),
    embed: false,
    tail,
  });
}

/** A page of the payment's own that needs no script (the challenge's full-page step): only the stylesheet. */
export function renderStaticPage(o: { language: Language; title: string; assets: DocumentAssets; embed: boolean; body: VNode }): string {
  return shell({ language: o.language, title: o.title, styles: o.assets.styles, body: renderToString(o.body), embed: o.embed, tail: '' });
}

/** The screen as a picture, without its state or scripts (nothing on it can pay): the dashboard's preview of a brand. */
export function renderScreenPreview({ view, assets }: { view: CheckoutView; assets: DocumentAssets }): string {
  const i18n = getTranslator(view.language);
  const body = renderToString(<CheckoutScreen model={createCheckoutModel(view)} i18n={i18n} parts={SERVER_PARTS} />);
  const styles = view.brand?.stylesheet ? [...assets.styles, view.brand.stylesheet] : assets.styles;
  return shell({ language: view.language, title: i18n.t('page.title', { merchant: view.merchantName }), styles, body, embed: false, tail: '' });
}

export const renderNotFound = (options: RenderNotFoundOptions): string => renderMessage(options, 'notFound');

export interface ViteManifestEntry {
  file: string;
  css?: string[];
}

/**
 * The client entry's script and stylesheet URLs from Vite's manifest
 * (dist/client/.vite/manifest.json). Files are under `assets/`, so with the server serving
 * dist/client/assets at /assets/ the URL is "/" + file.
 */
export function assetsFromManifest(
  manifest: Record<string, ViteManifestEntry>,
  entry = 'widget/screen/client.tsx',
  base = '/',
): DocumentAssets {
  const chunk = manifest[entry];
  if (!chunk) throw new Error(`${entry} is not in the Vite manifest; run \`vite build\``);
  return { scripts: [base + chunk.file], styles: (chunk.css ?? []).map((file) => base + file) };
}
