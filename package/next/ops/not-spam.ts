import { markNotSpam } from "@/lib/ops";
import { briefAction } from "@/lib/ops-web/gate";
import { postOnly } from "@/lib/ops-web/respond";
import { getServices } from "@/lib/services";

/** POST /api/ops/briefs/<reference>/not-spam: moves a honeypot catch into the inbox as `new` and notifies the channels. */
export function POST(request: Request, { params }: { params: Promise<{ reference: string }> }) {
  return briefAction(request, params, getServices, async ({ services, actor }, brief) => {
    const { delivery } = await markNotSpam(services, brief, { actor });
    return { status: "moved", delivery };
  });
}

export const GET = postOnly(getServices);
