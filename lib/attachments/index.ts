export * from "./filename";
export * from "./sniff";
