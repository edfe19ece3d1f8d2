export { expiresIn, InvalidLinkError, type LinkPayload, type LinkRefusal, LinkSigner } from "./tokens";
