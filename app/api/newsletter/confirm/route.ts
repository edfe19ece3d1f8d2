export { POST } from "studio-intake/next/newsletter-confirm";
