import { errorText } from "@/components/inbox/forms";
import { focusRing, Notice } from "@/components/inbox/shell";
import { SignInHumanCheck } from "@/components/inbox/sign-in-check";
import { requireOpsPage } from "@/lib/ops-web/gate";
import { safeNext } from "@/lib/ops-web/sign-in";
import { widgetSiteKey } from "@/lib/verification";
import { getServices } from "@/lib/services";

type Query = Record<string, string | string[] | undefined>;

/** /inbox/sign-in: an address, and a link by email to the listed ones. No password anywhere. */
export default async function SignInPage({ searchParams }: { searchParams: Promise<Query> }) {
  const query = await searchParams;
  const { services } = requireOpsPage(getServices);
  const next = safeNext(query.next);
  const siteKey = widgetSiteKey(services.config);
  const failed = errorText(query);
  return (
    <main id="main" className="mx-auto flex min-h-screen max-w-md flex-col justify-center px-5 py-16">
      <h1 className="text-2xl font-bold tracking-tight text-ink">Sign in to the inbox</h1>
      <p className="mt-2 text-sm text-muted">
        We email you a link to sign in. It works once, for 15 minutes.
      </p>
      <div className="mt-6">
        {query.done === "signed-out" ? (
          <Notice tone="success">You are signed out. Sign in again below whenever you need to.</Notice>
        ) : null}
        {query.done === "link-sent" ? (
          <Notice tone="success">
            If this address may sign in, a link is on its way. Open it from your email on this device.
          </Notice>
        ) : null}
        {failed ? <Notice tone="danger">{failed}</Notice> : null}
      </div>
      <form action="/api/ops/sign-in" method="post" className="flex flex-col gap-3">
        <input type="hidden" name="next" value={next} />
        <label htmlFor="sign-in-email" className="text-sm font-medium text-ink">
          Email
        </label>
        <input
          id="sign-in-email"
          name="email"
          type="email"
          required
          autoComplete="email"
          className="rounded border border-slate-300 bg-white px-3 py-2 text-base text-ink focus:border-accent focus:outline-none focus:ring-2 focus:ring-accent/30"
        />
        {siteKey ? <SignInHumanCheck siteKey={siteKey} /> : null}
        <button
          type="submit"
          className={`rounded bg-accent px-4 py-2 text-base font-semibold text-white hover:bg-accent-strong ${focusRing}`}
        >
          Email me a sign-in link
        </button>
      </form>
    </main>
  );
}
