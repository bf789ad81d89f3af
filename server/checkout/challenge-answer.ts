import type { Request } from 'express';
import { z } from 'zod';
import { type Found, type HostedPage, type PostRefused, readHostedPost } from './hosted-page';
import type { CheckoutContext } from './page';

// The customer's answer to an issuer's challenge, as every page that runs one reads it
// (a payment's, challenge-routes.ts; a save page's, save-routes.ts; a sign-up's,
// signup-routes.ts): the screen's dialog posts JSON with the CSRF token in a header, the
// no-JavaScript page a form with it in a field.

const challengeRequest = z.object({ answer: z.enum(['completed', 'failed', 'abandoned']), csrf: z.string().max(128).optional() });
export type ChallengeAnswerPosted = z.infer<typeof challengeRequest>['answer'];

/** The posted answer, or why it is refused (hosted-page.ts: unreadable, malformed, not from this page). */
export async function readChallengeAnswer(ctx: CheckoutContext, req: Request, page: HostedPage<Found>): Promise<{ answer: ChallengeAnswerPosted } | { refused: PostRefused }> {
  const read = await readHostedPost(ctx, req, page, challengeRequest);
  return 'refused' in read ? read : { answer: read.input.answer };
}
