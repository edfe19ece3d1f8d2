import Link from "next/link";
import type { ReactNode } from "react";
import { BRIEF_STATUSES, NOTE_MAX_LENGTH, type StoredBrief } from "@/lib/ops";
import { PostButton } from "./forms";
import { focusRing } from "./shell";
import { LocalTime } from "./time";

/**
 * The parts of a brief's page (/inbox/<reference>): its sections, the steps to the next and
 * previous brief, and the actions at the top (status, or "Not spam").
 */

export function Field({ label, children }: { label: string; children: ReactNode }) {
  return (
    <div className="grid grid-cols-1 gap-x-2 py-1.5 text-sm sm:grid-cols-[8rem_1fr]">
      <dt className="text-muted">{label}</dt>
      <dd className="min-w-0 break-words text-ink">{children}</dd>
    </div>
  );
}

export function Section({ title, children }: { title: string; children: ReactNode }) {
  return (
    <section aria-labelledby={`section-${title}`} className="rounded border border-slate-200 bg-white p-4">
      <h2 id={`section-${title}`} className="text-sm font-semibold text-ink">
        {title}
      </h2>
      <div className="mt-2">{children}</div>
    </section>
  );
}
const stepLink = `rounded px-1 py-0.5 font-medium text-accent hover:text-accent-strong ${focusRing}`;

export type Neighbour = { reference: string; name: string; href: string } | null;

/** Back to the list, and the previous and next brief in it (`p` and `n`). */
export function BriefSteps({
  listHref,
  previous,
  next,
}: {
  listHref: string;
  previous: Neighbour;
  next: Neighbour;
}) {
  return (
    <nav aria-label="Brief by brief" className="flex flex-wrap items-center gap-x-2 gap-y-1 text-sm">
      <Link href={listHref} className={stepLink}>
        ← Back to the list
      </Link>
      {previous ? (
        <Link href={previous.href} data-brief-step="previous" className={stepLink} title={previous.name}>
          Previous brief
        </Link>
      ) : (
        <span className="text-muted">First in the list</span>
      )}
      {next ? (
        <Link href={next.href} data-brief-step="next" className={stepLink} title={next.name}>
          Next brief
        </Link>
      ) : (
        <span className="text-muted">Last in the list</span>
      )}
    </nav>
  );
}

/** Where the page's answers for a spam catch and for a brief part: the actions at the top. */
export function SpamSection({ act, why }: { act: (action: string) => string; why: ReactNode }) {
  return (
    <Section title="Spam">
      {why}
      <p className="mt-1 text-sm text-muted">
        Nobody was notified. If this is a real brief, move it to the inbox: it becomes new and the channels
        are told, as for a brief just received.
      </p>
      <div className="mt-3">
        <PostButton action={act("not-spam")} tone="primary">
          Not spam
        </PostButton>
      </div>
    </Section>
  );
}

export function StatusSection({
  act,
  status,
}: {
  act: (action: string) => string;
  status: StoredBrief["state"]["status"];
}) {
  return (
    <Section title="Status">
      <div className="flex flex-wrap items-center gap-2">
        {BRIEF_STATUSES.map((each) => (
          <PostButton
            key={each}
            action={act("status")}
            name="status"
            value={each}
            pressed={status === each}
            tone={status === each ? "primary" : "plain"}
          >
            {each === "new" ? "New" : each === "handled" ? "Handled" : "Archived"}
          </PostButton>
        ))}
      </div>
    </Section>
  );
}

export function NotesSection({
  act,
  notes,
}: {
  act: (action: string) => string;
  notes: StoredBrief["state"]["notes"];
}) {
  return (
    <Section title="Notes">
      {notes.length === 0 ? (
        <p className="text-sm text-muted">No notes yet.</p>
      ) : (
        <ol className="flex flex-col gap-2">
          {notes.map((note, index) => (
            <li key={`${note.at}-${index}`} className="rounded bg-slate-50 px-3 py-2 text-sm">
              <p className="text-xs text-muted">
                {note.by} · <LocalTime iso={note.at} />
              </p>
              <p className="mt-0.5 whitespace-pre-wrap break-words text-ink">{note.text}</p>
            </li>
          ))}
        </ol>
      )}
      <form action={act("notes")} method="post" className="mt-3 flex flex-col gap-2">
        <label htmlFor="note-text" className="text-sm font-medium text-ink">
          Add a note
        </label>
        <textarea
          id="note-text"
          name="text"
          required
          maxLength={NOTE_MAX_LENGTH}
          rows={3}
          className="w-full rounded border border-slate-300 px-2 py-1.5 text-sm focus:border-accent focus:outline-none focus:ring-2 focus:ring-accent/30"
        />
        <div>
          <button
            type="submit"
            className={`rounded bg-accent px-3 py-1.5 text-sm font-semibold text-white hover:bg-accent-strong ${focusRing}`}
          >
            Save note
          </button>
        </div>
      </form>
    </Section>
  );
}
