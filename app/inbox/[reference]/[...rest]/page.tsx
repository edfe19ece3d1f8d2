export { default } from "studio-intake/next/inbox/not-found";
export const dynamic = "force-dynamic";
