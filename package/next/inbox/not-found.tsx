import { notFound } from "next/navigation";

/**
 * Any deeper path under /inbox that no page answers: the 404 is rendered per request here, so its
 * scripts carry the inbox policy's nonce. Left to Next, it would be the 404 prerendered at build,
 * whose scripts have none, and the inbox policy would refuse them.
 */
export default function NoSuchInboxPage(): never {
  notFound();
}
