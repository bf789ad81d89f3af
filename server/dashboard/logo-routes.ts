import type { IRouter, Request, Response } from 'express';
import { checkLogo, LOGO_MAX_BYTES, storedLogo } from '../domain/logo';
import { setLogo } from '../store/branding';
import { messagePage } from './account-pages';
import type { Kit } from './kit';
import type { Upload } from './upload';

// The settings form's logo: an owner's or admin's file (multipart) checked by the API's own
// rules (domain/logo.ts: PNG, JPEG or WebP by their bytes, at most 256 KiB) and kept in the
// same store as POST /v1/environment/branding/logo/, and its removal (as DELETE).

export type LogoError = 'too_large' | 'not_allowed';
type Logo = ReturnType<typeof storedLogo>;

/** The form's file: none chosen (null), an image we take, or why it is refused. */
export async function checkedLogo(upload: Upload | undefined): Promise<{ logo: Logo | null } | { error: LogoError }> {
  if (!upload || (upload.bytes.length === 0 && !upload.tooLarge)) return { logo: null };
  if (upload.tooLarge) return { error: 'too_large' };
  const verdict = await checkLogo(upload.bytes);
  return verdict.ok ? { logo: storedLogo(upload.bytes, verdict.contentType) } : { error: verdict.reason };
}

/** A body far larger than any logo, refused before it is read. */
export const hugeLogoPage = (kit: Kit) => (req: Request, res: Response) => {
  const text = kit.textOf(req);
  kit.send(res, 413, messagePage(text, text.t('settings.logoInvalid'), text.t('settings.logoError.too_large', { kib: LOGO_MAX_BYTES / 1024 }), { href: '/dashboard/settings/', label: text.t('nav.settings') }));
};

export function logoRemoveRoute(router: IRouter, kit: Kit): void {
  const { db, deps, forms, action } = kit;
  router.post('/settings/logo/remove/', forms, action('admin', async (req, res, s) => {
    await setLogo(db, s.current.environment_id, null, kit.actor(req, s), deps.now());
    res.redirect(303, '/dashboard/settings/?done=logoRemoved');
  }));
}
