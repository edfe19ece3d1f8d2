import { ContactSection } from "@/components/contact-section";

const SERVICES = [
  {
    title: "Web applications",
    text: "Fast, accessible products on modern stacks, from the first prototype to a platform with millions of users.",
  },
  {
    title: "AI systems",
    text: "Retrieval, agents and evaluation pipelines that hold up in production, with costs you can predict.",
  },
  {
    title: "SaaS platforms",
    text: "Multi-tenant foundations: billing, permissions, audit trails and the operations that keep them running.",
  },
];

const PROCESS = [
  ["Brief", "You tell us what you want to build. A partner reads every brief."],
  ["Call", "Thirty minutes to understand the problem, the people and the constraints."],
  ["Proposal", "A written plan with scope, milestones and a fixed price per milestone."],
  ["Build", "Weekly demos, a shared board, and code you own from the first commit."],
] as const;

/**
 * The landing page, prerendered at build: it reads nothing per request. The forms learn the
 * run-time settings they need when a visitor starts on them, and a contact form sent without
 * JavaScript comes back to `/contact`, not here.
 */
export default function HomePage() {
  return (
    <>
      <section className="bg-gradient-to-b from-indigo-50 to-white">
        <div className="mx-auto max-w-6xl px-5 py-20 sm:px-8 sm:py-28">
          <p className="text-sm font-semibold uppercase tracking-widest text-accent">Software studio</p>
          <h1 className="mt-4 max-w-3xl text-4xl font-bold tracking-tight text-ink sm:text-6xl">
            We build the software your next chapter runs on.
          </h1>
          <p className="mt-6 max-w-2xl text-lg text-muted">
            Senior engineers and designers for web applications, AI systems and SaaS platforms. Tell us what
            you are planning; we reply within two working days.
          </p>
          <a
            href="#contact"
            className="mt-10 inline-flex rounded-lg bg-accent px-6 py-3 text-base font-semibold text-white shadow-sm hover:bg-accent-strong"
          >
            Send us a brief
          </a>
        </div>
      </section>

      <section
        id="services"
        aria-labelledby="services-heading"
        className="mx-auto max-w-6xl px-5 py-20 sm:px-8"
      >
        <h2 id="services-heading" className="text-3xl font-bold tracking-tight text-ink">
          What we build
        </h2>
        <ul className="mt-10 grid gap-6 md:grid-cols-3">
          {SERVICES.map((service) => (
            <li key={service.title} className="rounded-2xl border border-slate-200 p-6 shadow-sm">
              <h3 className="text-lg font-semibold text-ink">{service.title}</h3>
              <p className="mt-2 text-muted">{service.text}</p>
            </li>
          ))}
        </ul>
      </section>

      <section id="process" aria-labelledby="process-heading" className="bg-slate-50">
        <div className="mx-auto max-w-6xl px-5 py-20 sm:px-8">
          <h2 id="process-heading" className="text-3xl font-bold tracking-tight text-ink">
            How we work
          </h2>
          <ol className="mt-10 grid gap-6 md:grid-cols-4">
            {PROCESS.map(([title, text], index) => (
              <li key={title} className="rounded-2xl bg-white p-6 shadow-sm">
                <span className="text-sm font-semibold text-accent">Step {index + 1}</span>
                <h3 className="mt-1 text-lg font-semibold text-ink">{title}</h3>
                <p className="mt-2 text-muted">{text}</p>
              </li>
            ))}
          </ol>
        </div>
      </section>

      <ContactSection page="/" />
    </>
  );
}
