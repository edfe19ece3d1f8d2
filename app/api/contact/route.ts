export { POST } from "studio-intake/next/contact";
