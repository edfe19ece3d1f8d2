export { default } from "studio-intake/next/inbox/erase";
export const dynamic = "force-dynamic";
