/** Reported by HealthCheck. The Qdrant client warns unless major versions match and minors are within 1. */
export const SERVER_TITLE = 'vectorstore - vector search engine';
/** The Qdrant API version we are compatible with. */
export const SERVER_VERSION = '1.19.0';
