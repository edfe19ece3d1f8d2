import {
  acceptsStagedUploads,
  AttachmentIntake,
  CONTACT_BODY_LIMIT,
  CONTACT_FORM_LIMITS,
  contactFormLocation,
  describeClient,
  receiveBrief,
  thankYouLocation,
  validateSubmission,
} from "@/lib/contact";
import { readMultipart } from "@/lib/http/body";
import { publicRoute } from "@/lib/http/public-route";
import type { BriefReceived } from "@/lib/http/responses";
import { getServices } from "@/lib/services";
import { requireHuman, tokenFromMultipart } from "@/lib/verification";

/**
 * POST /api/contact: a project brief as multipart form data, with an optional file. Scripts get
 * JSON; a browser posting the form without JavaScript is redirected to the next page.
 */
export const POST = publicRoute(
  {
    services: getServices,
    sameOriginOnly: true,
    limiter: (services) => services.limiters.contact,
    maxBodyBytes: CONTACT_BODY_LIMIT,
    mediaType: "multipart/form-data",
    failureLocation: contactFormLocation,
  },
  async ({ request, services, address }) => {
    // The file streams to the store as it arrives; whatever no brief committed is removed at the end.
    const intake = new AttachmentIntake(services.store);
    try {
      const form = await readMultipart(request, CONTACT_FORM_LIMITS, intake.open);
      const submission = await validateSubmission(
        form,
        acceptsStagedUploads(services.store) ? services.store : null,
      );
      const verification = await requireHuman(services.verifier, {
        token: tokenFromMultipart(form),
        action: "contact",
        remoteIp: address,
      });
      const client = describeClient(request, address, services.ipHashSalt);
      const { reference, forwarded } = await receiveBrief(services, submission, client, verification);

      const body = { ok: true, reference, stored: true, forwarded } satisfies BriefReceived;
      return { body, location: thankYouLocation(reference) };
    } finally {
      await intake.discard();
    }
  },
);
