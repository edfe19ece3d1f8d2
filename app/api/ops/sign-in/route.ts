export { GET, POST } from "studio-intake/next/ops/sign-in";
