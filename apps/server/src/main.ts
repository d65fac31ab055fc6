import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { ConfigError, loadConfig } from '@vectorstore/config';
import { DataDirLock } from '@vectorstore/persistence';
import { Logger } from 'nestjs-pino';
import { AppModule } from './app.module';
import { grpcServerOptions } from './grpc/grpc-server.options';
import { configureHttp } from './http/http-setup';

async function bootstrap(): Promise<void> {
  let config;
  try {
    config = loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`${error.message}\n`);
      process.exit(2);
    }
    throw error;
  }
  const lock = await DataDirLock.acquire(config.dataDir);
  const app = await NestFactory.create<NestExpressApplication>(AppModule.forRoot(config), { bufferLogs: true, bodyParser: false });
  configureHttp(app);
  app.useLogger(app.get(Logger));
  app.enableShutdownHooks();
  app.connectMicroservice(grpcServerOptions(config), { inheritAppConfig: true });
  await app.startAllMicroservices();
  await app.listen(config.http.port, config.http.host);
  const logger = app.get(Logger);
  logger.log({
    msg: 'vectorstore is ready',
    httpPort: config.http.port,
    grpcPort: config.grpc.port,
    host: config.http.host,
    dataDir: config.dataDir,
  });
  // Nest's shutdown hooks close HTTP and gRPC; the lock goes last so a restart can take the folder.
  const release = () => void lock.release();
  process.once('exit', release);
}

bootstrap().catch((error: unknown) => {
  process.stderr.write(`vectorstore failed to start: ${error instanceof Error ? error.stack ?? error.message : String(error)}\n`);
  process.exit(1);
});
