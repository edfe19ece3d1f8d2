export { GET, POST } from "studio-intake/next/newsletter-unsubscribe";
