export function NextSteps() {
  return (
    <ol className="mt-4 list-decimal space-y-1 pl-5 text-ink">
      <li>A partner reads every brief within two working days.</li>
      <li>We reply by email with questions, or to set up a 30-minute call.</li>
      <li>If we are a good fit, you get a written proposal within a week of that call.</li>
    </ol>
  );
}
