export { alt, contentType, default, size } from "./opengraph-image";
