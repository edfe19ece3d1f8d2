export { default } from "studio-intake/next/inbox/sign-in";
export const dynamic = "force-dynamic";
