export { GET } from "studio-intake/next/health";
export const dynamic = "force-dynamic";
