export { proxy } from "studio-intake/next/proxy";
export const config = {
  matcher: ["/((?!api/|_next/static|_next/image).*)"],
};
