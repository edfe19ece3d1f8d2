import type { Metadata } from "next";
import Link from "next/link";
import { NextSteps } from "@/components/next-steps";
import { parseReference } from "@/lib/reference";

export const metadata: Metadata = { title: "Thank you", robots: { index: false } };

export default async function ThankYouPage({
  searchParams,
}: {
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  const query = await searchParams;
  const reference = typeof query.reference === "string" ? parseReference(query.reference) : null;

  return (
    <section className="mx-auto max-w-2xl px-5 py-24 sm:px-8">
      <h1 className="text-3xl font-bold tracking-tight text-ink">Thank you, your brief is with us.</h1>
      {reference ? (
        <p className="mt-4 text-lg text-ink">
          Your reference is{" "}
          <strong className="font-mono tracking-wider" data-testid="reference">
            {reference}
          </strong>
          . Quote it if you write to us about this project.
        </p>
      ) : null}
      <NextSteps />
      <Link href="/" className="mt-10 inline-block font-semibold text-accent hover:text-accent-strong">
        Back to the home page
      </Link>
    </section>
  );
}
