/** Qdrant's defaults for the reads that leave them out, the same on gRPC and REST (transports read them here). */
export const SCROLL_DEFAULT_LIMIT = 10;
export const FACET_DEFAULT_LIMIT = 10;
export const QUERY_DEFAULT_LIMIT = 10;
export const QUERY_GROUPS_DEFAULT_GROUP_SIZE = 3;
