export { default } from "studio-intake/next/inbox/subscribers";
export const dynamic = "force-dynamic";
