import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { ClusterNode } from '@vectorstore/cluster';
import { FileCatalogStore, loadOrCreatePeerId } from '@vectorstore/collections';
import { FileUserStore } from '@vectorstore/auth';
import { AppConfig, ClusterConfig, ConfigError, loadConfig } from '@vectorstore/config';
import { DataDirInUseError, DataDirLock, DataDirLockError } from '@vectorstore/persistence';
import { Logger } from 'nestjs-pino';
import { AppModule } from './app.module';
import { grpcServerOptions } from './grpc/grpc-server.options';
import { TimedGrpcServer } from './grpc/timed-grpc-server';
import { RequestMetrics } from './core/metrics/request-metrics';
import { configureHttp } from './core/http-setup';
import { RestHttpAdapter } from './core/rest/rest-http-adapter';
import { SERVER_VERSION } from './version';
import { GrpcPeerTransport } from './cluster/p2p/peer-client';
import { startPeerServer, stopPeerServer } from './cluster/p2p/peer-server';
import { GrpcPointsPeers } from './cluster/p2p/grpc-points-peers';
import { ShardEndpoint } from '@vectorstore/replication';

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
  let lock: DataDirLock;
  try {
    lock = await DataDirLock.acquire(config.dataDir, {
      onWait: (pid) =>
        process.stderr.write(
          `vectorstore: waiting for the data-folder lock${pid ? ` held by pid ${pid}` : ''} (a killed server's memory may still be being freed)\n`,
        ),
    });
  } catch (error) {
    // An expected refusal, not a bug: the message says it all.
    if (error instanceof DataDirInUseError || error instanceof DataDirLockError) {
      process.stderr.write(`vectorstore failed to start: ${error.message}\n`);
      process.exit(1);
    }
    throw error;
  }
  let cluster: ClusterNode | undefined;
  try {
    cluster = config.cluster ? await joinCluster(config, config.cluster) : undefined;
  } catch (error) {
    lock.releaseSync();
    const message = error instanceof Error ? error.message : String(error);
    process.stderr.write(`vectorstore failed to start: cluster mode: ${message}\n`);
    process.exit(1);
  }
  // The transport to other peers exists from the start: the replicated layer routes through it.
  const peerTransport =
    cluster && config.cluster ? new GrpcPeerTransport(cluster, config.cluster.etcd.timeoutMs) : undefined;
  const pointsPeers = cluster && peerTransport ? new GrpcPointsPeers(cluster, peerTransport) : undefined;
  const app = await NestFactory.create<NestExpressApplication>(
    AppModule.forRoot(config, cluster, pointsPeers),
    new RestHttpAdapter(),
    { bufferLogs: true, bodyParser: false },
  );
  configureHttp(app);
  app.useLogger(app.get(Logger));
  const grpcServer = new TimedGrpcServer(grpcServerOptions(config).options, app.get(RequestMetrics));
  app.connectMicroservice({ strategy: grpcServer }, { inheritAppConfig: true });
  await app.startAllMicroservices();
  await app.listen(config.http.port, config.http.host);
  // Cluster mode: the peer service first (others call a peer as soon as it is registered), then join.
  const peerServer =
    cluster && config.cluster ? await startPeerServer(config.cluster, cluster, app.get(ShardEndpoint)) : undefined;
  if (cluster && peerTransport) {
    await cluster.join();
    cluster.connectPeers(peerTransport);
  }
  const logger = app.get(Logger);
  logger.log({
    msg: 'vectorstore is ready',
    httpPort: config.http.port,
    grpcPort: config.grpc.port,
    host: config.http.host,
    dataDir: config.dataDir,
  });
  // On SIGTERM/SIGINT: close HTTP and gRPC and run every shutdown hook (storage flushes), then
  // release the data folder. Nest's own hook would re-raise the signal and skip the release.
  const stop = (signal: NodeJS.Signals) => {
    logger.log({ msg: 'stopping', signal });
    setTimeout(() => process.exit(1), 30_000).unref();
    // A peer leaves the cluster first, so that others stop counting on it while it drains.
    void Promise.resolve(cluster?.leave())
      .then(() => peerServer && stopPeerServer(peerServer))
      .then(() => app.close())
      .then(() => cluster?.close())
      .then(
        () => {
          lock.releaseSync();
          process.exit(0);
        },
        (error: unknown) => {
          // A supervisor must see that the stop was not clean (storage may not have flushed).
          logger.error({ msg: 'shutdown failed', err: error });
          process.exit(1);
        },
      );
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
}

/** Joins the cluster named in the config; a standalone catalog in the data folder moves into an empty cluster. */
async function joinCluster(config: AppConfig, cluster: ClusterConfig): Promise<ClusterNode> {
  const standalone = new FileCatalogStore(config.dataDir);
  const users = new FileUserStore(config.dataDir);
  await users.load();
  const node = await ClusterNode.start({
    config: cluster,
    peerId: await loadOrCreatePeerId(config.dataDir),
    httpUri: `http://${cluster.advertiseHost}:${config.http.port}`,
    grpcUri: `http://${cluster.advertiseHost}:${config.grpc.port}`,
    version: SERVER_VERSION,
    standaloneCatalog: await standalone.load(),
    standaloneUsers: await users.list(),
    sealLifetimeMs: config.auth.refreshReuseGraceSeconds * 1000,
  });
  if (node.importedStandalone) await standalone.retire();
  // The cluster has them now; kept beside, as the catalog is, but no longer read.
  if (node.importedUsers) await users.retire();
  return node;
}

bootstrap().catch((error: unknown) => {
  process.stderr.write(
    `vectorstore failed to start: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
  );
  process.exit(1);
});
