export { GET } from "studio-intake/next/inbox/export-briefs";
