export { default } from "studio-intake/next/inbox/briefs";
export const dynamic = "force-dynamic";
