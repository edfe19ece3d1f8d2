export { default, metadata } from "studio-intake/next/pages/newsletter";
