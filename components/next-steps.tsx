import { NEXT_STEPS } from "@/lib/site/next-steps";

export function NextSteps() {
  return (
    <ol className="mt-4 list-decimal space-y-1 pl-5 text-ink">
      {NEXT_STEPS.map((step) => (
        <li key={step}>{step}</li>
      ))}
    </ol>
  );
}
