export { GET } from "studio-intake/next/form-settings";
export const dynamic = "force-dynamic";
