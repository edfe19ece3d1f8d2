export { default, metadata } from "studio-intake/next/inbox/layout";
