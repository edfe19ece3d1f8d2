export { default } from "studio-intake/next/inbox/spam";
export const dynamic = "force-dynamic";
