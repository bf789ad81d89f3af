import type { IRouter, Request, Response } from 'express';
import { checkLogo, LOGO_MAX_BYTES, storedLogo } from '../domain/logo';
import { getBrand, setLogo } from '../store/branding';
import type { ActiveSession } from './accounts';
import { messagePage } from './account-pages';
import type { Kit } from './kit';
import type { LogoError } from './logo-form';
import type { ShowOptions } from './settings-routes';
import { multipartForm } from './upload';

// The settings page's logo: an owner's or admin's upload (multipart) checked by the API's
// own rules (domain/logo.ts: PNG, JPEG or WebP by their bytes, at most 256 KiB) and kept in
// the same store as POST /v1/environment/branding/logo/, and its removal (as DELETE).

type Show = (req: Request, res: Response, s: ActiveSession, o?: ShowOptions) => Promise<void>;

export function logoRoutes(router: IRouter, kit: Kit, show: Show): void {
  const { db, deps, forms, action, send, textOf, audit } = kit;
  const tooLarge = (req: Request, res: Response) => {
    const text = textOf(req);
    send(res, 413, messagePage(text, text.t('settings.logoInvalid'), text.t('settings.logoError.too_large', { kib: LOGO_MAX_BYTES / 1024 }), { href: '/dashboard/settings/', label: text.t('nav.settings') }));
  };

  router.post('/settings/logo/', multipartForm('logo', { fileBytes: LOGO_MAX_BYTES }, tooLarge), action('admin', async (req, res, s) => {
    const upload = req.uploads?.[0];
    const refuse = (logoError: LogoError) => show(req, res, s, { status: 400, logoError });
    if (!upload || (upload.bytes.length === 0 && !upload.tooLarge)) return refuse('missing');
    if (upload.tooLarge) return refuse('too_large');
    const verdict = await checkLogo(upload.bytes);
    if (!verdict.ok) return refuse(verdict.reason);
    const logo = storedLogo(upload.bytes, verdict.contentType);
    await setLogo(db, s.current.environment_id, logo, deps.now());
    await audit(req, s, 'logo_changed', { type: verdict.contentType, sha256: logo.sha256 });
    res.redirect(303, '/dashboard/settings/?done=logo');
  }));

  router.post('/settings/logo/remove/', forms, action('admin', async (req, res, s) => {
    const had = (await getBrand(db, s.current.environment_id))?.logo_sha256;
    await setLogo(db, s.current.environment_id, null, deps.now());
    if (had) await audit(req, s, 'logo_removed');
    res.redirect(303, '/dashboard/settings/?done=logoRemoved');
  }));
}
