export { GET } from "studio-intake/next/cron-gc";
export const dynamic = "force-dynamic";
