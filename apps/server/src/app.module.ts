import { DynamicModule, Module } from '@nestjs/common';
import { APP_FILTER, APP_INTERCEPTOR } from '@nestjs/core';
import { CollectionsModule } from '@vectorstore/collections';
import { AppConfig, ConfigModule } from '@vectorstore/config';
import { PointsModule } from '@vectorstore/points';
import { LoggerModule } from 'nestjs-pino';
import { GrpcAuthModule } from './grpc/auth/grpc-auth.module';
import { CollectionsGrpcController } from './grpc/collections.grpc.controller';
import { GrpcTimingInterceptor } from './grpc/grpc-timing.interceptor';
import { HealthGrpcController } from './grpc/health.grpc.controller';
import { PointsGrpcController } from './grpc/points.grpc.controller';
import { AuthHttpModule } from './http/auth/auth-http.module';
import { HealthHttpController } from './http/health.http.controller';
import { TransportExceptionFilter } from './transport-exception.filter';

/** One process: HTTP (health, auth) and gRPC (collections, points, health) over the same domain modules. */
@Module({})
export class AppModule {
  static forRoot(config: AppConfig): DynamicModule {
    return {
      module: AppModule,
      imports: [
        ConfigModule.forRoot(config),
        LoggerModule.forRoot({
          pinoHttp: {
            level: config.logLevel,
            // Health probes would drown the log.
            autoLogging: { ignore: (req) => /^\/(healthz|livez|readyz)$/.test(req.url ?? '') },
            redact: ['req.headers.authorization', 'req.headers["api-key"]', 'req.headers.cookie'],
          },
        }),
        CollectionsModule.forRoot({ dataDir: config.dataDir }),
        PointsModule.forRoot({ dataDir: config.dataDir }),
        // Auth: /api/auth routes plus the global HTTP and gRPC guards (everything closed unless @Public).
        AuthHttpModule,
        GrpcAuthModule,
      ],
      controllers: [CollectionsGrpcController, PointsGrpcController, HealthGrpcController, HealthHttpController],
      providers: [
        { provide: APP_FILTER, useClass: TransportExceptionFilter },
        { provide: APP_INTERCEPTOR, useClass: GrpcTimingInterceptor },
      ],
    };
  }
}
