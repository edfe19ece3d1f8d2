export { POST } from "studio-intake/next/deliveries-retry";
export const dynamic = "force-dynamic";
