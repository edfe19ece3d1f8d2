export { default } from "studio-intake/next/inbox/sign-in-confirm";
export const dynamic = "force-dynamic";
