export * from './app-config';
export * from './load-config';
export * from './config.module';
