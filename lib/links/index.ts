export {
  expiresIn,
  InvalidLinkError,
  type LinkClaims,
  type LinkPurpose,
  type LinkRefusal,
  LinkSigner,
} from "./tokens";
