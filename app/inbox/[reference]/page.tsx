export { default } from "studio-intake/next/inbox/brief";
export const dynamic = "force-dynamic";
