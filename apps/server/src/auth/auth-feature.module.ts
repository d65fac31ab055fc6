import { Module } from '@nestjs/common';
import { GrpcAuthModule } from './grpc/grpc-auth.module';
import { AuthHttpModule } from './http/auth-http.module';

/** `/api/auth/*` and the global guards of both transports (everything closed unless `@Public`). */
@Module({ imports: [AuthHttpModule, GrpcAuthModule] })
export class AuthFeatureModule {}
