"use client";

import { lazy, Suspense } from "react";

const Turnstile = lazy(() =>
  import("@marsidev/react-turnstile").then((module) => ({ default: module.Turnstile })),
);

/**
 * Cloudflare Turnstile inside the sign-in form, when verification is on: the widget puts its
 * token in the form as `cf-turnstile-response`, which the form posts with the address.
 */
export function SignInHumanCheck({ siteKey }: { siteKey: string }) {
  return (
    <Suspense fallback={null}>
      <Turnstile siteKey={siteKey} options={{ action: "ops-sign-in", size: "flexible" }} />
    </Suspense>
  );
}
