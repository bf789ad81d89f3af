import { liveReadiness, type Readiness } from '../domain/live-readiness';
import { getBrand } from '../store/branding';
import type { Db } from '../store/db';
import { deliveriesOf } from '../store/processor-deliveries';

// The facts of an environment's live readiness, read from the store and decided by
// domain/live-readiness.ts: the checklist page (live-readiness-routes.ts) and the
// Overview's "Needs attention" (home-attention.ts) read the same answer.

export async function readinessOf(db: Db, environmentId: string, now: Date): Promise<Readiness> {
  const [processors, brand] = await Promise.all([deliveriesOf(db, environmentId), getBrand(db, environmentId)]);
  return liveReadiness(
    {
      processors,
      display_name: brand?.display_name ?? null,
      brand_color: brand?.brand_color ?? null,
      logo_sha256: brand?.logo_sha256 ?? null,
      support_email: brand?.support_email ?? null,
    },
    now,
  );
}
