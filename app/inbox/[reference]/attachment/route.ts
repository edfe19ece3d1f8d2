export { GET } from "studio-intake/next/inbox/attachment";
