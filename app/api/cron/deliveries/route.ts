export { GET } from "studio-intake/next/cron-deliveries";
export const dynamic = "force-dynamic";
