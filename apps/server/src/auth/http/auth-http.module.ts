import { Module } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { PassportModule } from '@nestjs/passport';
import { AuthModule } from '@vectorstore/auth';
import { AuthHttpController } from './auth.http.controller';
import { HttpAuthGuard } from './http-auth.guard';
import { JwtStrategy } from './jwt.strategy';
import { UsersHttpController } from './users.http.controller';

/** The auth routes, the passport-jwt strategy and the global HTTP guard. */
@Module({
  imports: [AuthModule, PassportModule],
  controllers: [AuthHttpController, UsersHttpController],
  providers: [JwtStrategy, { provide: APP_GUARD, useClass: HttpAuthGuard }],
})
export class AuthHttpModule {}
