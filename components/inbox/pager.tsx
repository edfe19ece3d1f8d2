import Link from "next/link";
import { focusRing } from "./shell";

/** Previous and next page of a list, its filters (`query`) kept: the briefs', spam's, the subscribers'. */
export function PageLinks({
  action,
  query,
  page,
  pages,
}: {
  action: string;
  query: URLSearchParams;
  page: number;
  pages: number;
}) {
  if (pages <= 1) return null;
  const href = (target: number) => {
    const kept = new URLSearchParams(query);
    kept.set("page", String(target));
    return `${action}?${kept.toString()}`;
  };
  const link = `rounded border border-slate-300 bg-white px-2.5 py-1 font-medium text-ink hover:bg-slate-50 ${focusRing}`;
  return (
    <nav aria-label="Pages" className="mt-3 flex items-center justify-between text-sm">
      {page > 1 ? (
        <Link href={href(page - 1)} className={link}>
          Newer
        </Link>
      ) : (
        <span />
      )}
      <span className="text-muted">
        Page {page} of {pages}
      </span>
      {page < pages ? (
        <Link href={href(page + 1)} className={link}>
          Older
        </Link>
      ) : (
        <span />
      )}
    </nav>
  );
}
