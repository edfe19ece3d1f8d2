import Link from "next/link";
import { errorText } from "@/components/inbox/forms";
import { focusRing, Notice } from "@/components/inbox/shell";
import { requireOpsPage } from "@/lib/ops-web/gate";
import { safeNext } from "@/lib/ops-web/sign-in";
import { getServices } from "@/lib/services";

type Query = Record<string, string | string[] | undefined>;

/**
 * Where the sign-in email's link leads. Opening it spends nothing (mail scanners open links);
 * only its button's POST signs in.
 */
export default async function ConfirmSignInPage({ searchParams }: { searchParams: Promise<Query> }) {
  const query = await searchParams;
  requireOpsPage(getServices);
  const token = typeof query.token === "string" ? query.token : "";
  const failed = errorText(query);
  return (
    <main id="main" className="mx-auto flex min-h-screen max-w-md flex-col justify-center px-5 py-16">
      <h1 className="text-2xl font-bold tracking-tight text-ink">Sign in to the inbox</h1>
      {failed || token === "" ? (
        <div className="mt-6">
          <Notice tone="danger">{failed ?? "This page needs the link from your sign-in email."}</Notice>
          <Link
            href="/inbox/sign-in"
            className={`text-sm font-medium text-accent hover:text-accent-strong ${focusRing}`}
          >
            Ask for a new link
          </Link>
        </div>
      ) : (
        <form action="/api/ops/session" method="post" className="mt-6 flex flex-col gap-3">
          <p className="text-sm text-muted">Confirm to sign in on this device.</p>
          <input type="hidden" name="token" value={token} />
          <input type="hidden" name="next" value={safeNext(query.next)} />
          <button
            type="submit"
            className={`rounded bg-accent px-4 py-2 text-base font-semibold text-white hover:bg-accent-strong ${focusRing}`}
          >
            Sign in
          </button>
        </form>
      )}
    </main>
  );
}
