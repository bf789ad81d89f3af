import { createHash } from 'node:crypto';

// The rules of an environment's logo, shared by the API (POST /v1/environment/branding/logo/)
// and the dashboard's upload form: which images, how large, told by the bytes themselves
// and never by the name or the type a client claims.

/** PNG, JPEG or WebP, as their bytes say: what every browser shows and nothing that can run (no SVG). */
export const LOGO_TYPES = ['image/png', 'image/jpeg', 'image/webp'] as const;
export type LogoType = (typeof LOGO_TYPES)[number];
export const LOGO_MAX_BYTES = 256 * 1024;

export type LogoVerdict =
  | { ok: true; contentType: LogoType }
  | { ok: false; reason: 'too_large' }
  /** `seen`: the image type the bytes are, when it is one of ours but not the one claimed. */
  | { ok: false; reason: 'not_allowed'; seen: LogoType | null };

/**
 * What `bytes` are: an allowed image (of the type `claimed`, when one is claimed), too large,
 * or not an image we take. file-type reads the magic numbers of a buffer (no I/O); it is
 * loaded on the first upload, so the service starts without it.
 */
export async function checkLogo(bytes: Uint8Array, claimed?: LogoType): Promise<LogoVerdict> {
  if (bytes.byteLength > LOGO_MAX_BYTES) return { ok: false, reason: 'too_large' };
  const { fileTypeFromBuffer } = await import('file-type');
  const mime = (await fileTypeFromBuffer(bytes))?.mime;
  const known = (LOGO_TYPES as readonly string[]).includes(mime ?? '') ? (mime as LogoType) : null;
  if (known && (claimed === undefined || claimed === known)) return { ok: true, contentType: known };
  return { ok: false, reason: 'not_allowed', seen: known };
}

/** A checked logo as it is stored: its bytes, type, and the hash its URL is named by. */
export const storedLogo = (data: Uint8Array, contentType: LogoType) => ({ sha256: createHash('sha256').update(data).digest('hex'), contentType, data });
