export { register } from "studio-intake/next/instrumentation";
