/** See blob-routing.mjs. */
export function routeBlobStorageTo(standInOrigin: string): () => void;
