import type { Request } from 'express';
import { z } from 'zod';
import { applyBrandRules, DISPLAY_NAME_MAX } from '../domain/brand';
import { HEX_COLOR } from '../domain/contrast';
import { checkLogo, LOGO_MAX_BYTES, LOGO_TYPES, storedLogo } from '../domain/logo';
import { logoPath } from '../checkout/brand';
import { ApiError, fieldError } from '../http/problem';
import { route, type RouteDef } from '../http/route';
import { findApiKeyByPublicKey } from '../store/api-keys';
import type { Actor } from '../store/audit';
import { type Brand, getBrand, setLogo, updateBrand } from '../store/branding';
import type { Db } from '../store/db';
import { customerEmail, text } from '../schemas/fields';

// The environment's brand: the name customers see on the payment page and in emails, the
// address for their questions, the page's colours and its logo (checked by domain/logo.ts). A
// colour that the pay button's text could not be read on is darkened until it can (WCAG
// AA, 4.5:1), and the answer says so in `adjustments`. Each change is in the dashboard's audit
// log, by the API key that made it, as the dashboard's own are (store/branding.ts).

const TAG = 'Environment';

const color = z
  .string()
  .regex(HEX_COLOR, 'must be a colour as #rrggbb')
  .nullable()
  .optional();

const brandingPatch = z
  .strictObject({
    display_name: text(DISPLAY_NAME_MAX).min(1).nullable().optional().describe("The name customers see, on the payment page and in emails; null: the environment's name"),
    support_email: customerEmail.nullable().optional().describe("Where customers write with questions: printed on every email (and its Reply-To); null: none"),
    brand_color: color.describe('The pay button and links, as `#rrggbb`; darkened when white text on it would fail WCAG AA; null: the page\'s own'),
    accent_color: color.describe('The band at the top of the payment card, as `#rrggbb` (decoration, no text on it); null: the brand colour'),
  })
  .meta({ id: 'BrandingInput', minProperties: 1, description: 'The fields to change, at least one; null clears a field' })
  .refine((v) => Object.keys(v).length > 0, 'send at least one field to change');

const adjustment = z
  .object({
    field: z.enum(['brand_color']).describe('The field that was adjusted'),
    requested: z.string().describe('The colour sent'),
    applied: z.string().describe('The colour stored and used'),
    contrast: z.number().describe('Contrast ratio of white text on the colour sent (AA needs 4.5)'),
    reason: z.string().describe('Why, in words'),
  })
  .describe('A value changed on its way in');

const brandingOut = z
  .object({
    name: z.string().describe("The environment's own name (set when its keys were made)"),
    display_name: z.string().nullable().describe('The name customers see; null: `name`'),
    support_email: z.string().nullable().describe('Where customers write with questions'),
    brand_color: z.string().nullable().describe('The pay button and links, as applied'),
    accent_color: z.string().nullable().describe('The band at the top of the payment card'),
    logo_url: z.string().nullable().describe('The logo, served from this service; its URL changes with the logo'),
    adjustments: z.array(adjustment).describe('What this request changed on the way in (contrast); empty otherwise'),
  })
  .meta({ id: 'Branding', description: "An environment's brand on its payment pages and emails" });

export type BrandingOut = z.output<typeof brandingOut>;


function presentBranding(environmentId: string, b: Brand, baseUrl: string, adjustments: BrandingOut['adjustments'] = []): BrandingOut {
  return {
    name: b.name,
    display_name: b.display_name ?? null,
    support_email: b.support_email ?? null,
    brand_color: b.brand_color ?? null,
    accent_color: b.accent_color ?? null,
    logo_url: b.logo_sha256 ? `${baseUrl}${logoPath(environmentId, b.logo_sha256)}` : null,
    adjustments,
  };
}

const BRANDING_EXAMPLE: BrandingOut = {
  name: 'Coffee shop',
  display_name: 'Tostadores Ana',
  support_email: 'help@shop.example',
  brand_color: '#806f00',
  accent_color: '#ffdd00',
  logo_url: 'http://localhost:3000/brand/01943a6e-1111-7000-8000-000000000001/9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08',
  adjustments: [
    {
      field: 'brand_color',
      requested: '#ffdd00',
      applied: '#806f00',
      contrast: 1.35,
      reason: 'white text on #ffdd00 has a contrast of 1.35:1, below WCAG AA (4.5:1): darkened to #806f00',
    },
  ],
};

// The logo's rules (types by their bytes, size) are domain/logo.ts's, shared with the dashboard.
/** The JSON body that carries the largest logo: base64 is 4/3 of the bytes. */
export const LOGO_BODY_LIMIT = Math.ceil(LOGO_MAX_BYTES / 3) * 4 + 1024;

export const tooLargeLogo = () =>
  new ApiError('payload_too_large', `A logo may be at most ${LOGO_MAX_BYTES / 1024} KiB once decoded`, [
    { path: 'data', message: `is larger than ${LOGO_MAX_BYTES / 1024} KiB (${LOGO_MAX_BYTES} bytes)` },
  ]);

const logoUpload = z
  .strictObject({
    content_type: z.enum(LOGO_TYPES).describe('PNG, JPEG or WebP; checked against the bytes themselves'),
    data: z.base64().min(1).describe(`The image, base64; at most ${LOGO_MAX_BYTES / 1024} KiB decoded (a larger one is a 413)`),
  })
  .meta({ id: 'LogoInput', description: "The environment's logo: shown above its name on the payment and sign-up pages, at most 40 px high" });

/** The bytes, once they are known to be the image the request says they are. */
async function logoBytes(body: z.output<typeof logoUpload>): Promise<Buffer> {
  const bytes = Buffer.from(body.data, 'base64');
  const verdict = await checkLogo(bytes, body.content_type);
  if (verdict.ok) return bytes;
  if (verdict.reason === 'too_large') throw tooLargeLogo();
  const seen = verdict.seen ? `they are ${verdict.seen}` : 'they are not a PNG, JPEG or WebP image';
  throw fieldError('content_type', `does not match the bytes (${seen})`);
}

/** The key that opened the request, as the audit log names it: its id and label, never a secret. */
async function keyActor(db: Db, req: Request): Promise<Actor> {
  const key = (await findApiKeyByPublicKey(db, req.appKey!))!;
  return { userId: null, email: null, ip: req.ip ?? null, detail: { api_key: key.id, api_key_label: key.label } };
}

export const brandingRoutes = (): RouteDef[] => [
  route({
    method: 'get',
    path: '/environment/branding/',
    operationId: 'getBranding',
    summary: "Read the environment's brand",
    description: 'The name, support address, colours and logo customers see on the payment page, the sign-up page, the widget and emails.',
    example: { response: { ...BRANDING_EXAMPLE, adjustments: [] } },
    tag: TAG,
    response: brandingOut,
    status: 200,
    async handler({ env, db, baseUrl }) {
      return presentBranding(env.id, (await getBrand(db, env.id))!, baseUrl);
    },
  }),
  route({
    method: 'patch',
    path: '/environment/branding/',
    operationId: 'updateBranding',
    summary: "Change the environment's brand",
    description:
      'Changes the fields sent; `null` clears one. A `brand_color` on which white text fails WCAG AA (4.5:1), or that fails it on the page\'s light background, is darkened until it passes: the answer lists that in `adjustments`, and the colour stored is the one applied.',
    example: { request: { display_name: 'Tostadores Ana', support_email: 'help@shop.example', brand_color: '#ffdd00', accent_color: '#ffdd00' }, response: BRANDING_EXAMPLE },
    tag: TAG,
    body: brandingPatch,
    response: brandingOut,
    status: 200,
    async handler({ env, db, body, baseUrl, req, deps }) {
      const { patch, adjustments } = applyBrandRules(body);
      return presentBranding(env.id, await updateBrand(db, env.id, patch, await keyActor(db, req), deps.now()), baseUrl, adjustments);
    },
  }),
  route({
    method: 'post',
    path: '/environment/branding/logo/',
    operationId: 'uploadLogo',
    summary: "Set the environment's logo",
    description: `Replaces the logo with a PNG, JPEG or WebP image of at most ${LOGO_MAX_BYTES / 1024} KiB, sent in base64. The bytes must be the type named (an SVG, a GIF or a PDF is refused). The image is served from this service at \`logo_url\`, a URL that changes with the image.`,
    example: { request: { content_type: 'image/png', data: 'iVBORw0KGgo=' }, response: { ...BRANDING_EXAMPLE, adjustments: [] } },
    tag: TAG,
    body: logoUpload,
    response: brandingOut,
    status: 201,
    problems: [413],
    async handler({ env, db, body, baseUrl, req, deps }) {
      const data = await logoBytes(body);
      return presentBranding(env.id, await setLogo(db, env.id, storedLogo(data, body.content_type), await keyActor(db, req), deps.now()), baseUrl);
    },
  }),
  route({
    method: 'delete',
    path: '/environment/branding/logo/',
    operationId: 'deleteLogo',
    summary: "Remove the environment's logo",
    description: 'The pages show the name alone again; the old logo URL answers 404.',
    example: {},
    tag: TAG,
    status: 204,
    async handler({ env, db, req, deps }) {
      await setLogo(db, env.id, null, await keyActor(db, req), deps.now());
    },
  }),
];
