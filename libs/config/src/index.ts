// @vectorstore/config: the environment, validated once at start into a typed config.
export { loadConfig, ConfigError } from './load-config';
export { ConfigModule, APP_CONFIG } from './config.module';
export type { AppConfig, AuthConfig, ClusterConfig, CookieSecureMode, LogLevel } from './app-config';
