export { GET, POST } from "studio-intake/next/inbox/person-export";
