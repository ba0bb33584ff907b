import { rslLicense, RSL_TYPE } from '@/lib/agents/terms';
import { site } from '@/lib/content';
import { xmlResponse } from '@/lib/http/responses';
import { settings } from '@/lib/settings';

export const dynamic = 'force-static';

/** The site's terms as an RSL 1.0 licence (lib/agents/terms.ts). */
export function GET() {
  return xmlResponse(rslLicense(site().author.name), RSL_TYPE, { signal: true, lastModified: settings().build.time });
}
