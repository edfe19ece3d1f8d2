export { default } from "studio-intake/next/inbox/audit";
export const dynamic = "force-dynamic";
