import { Body, Get, Header, HttpCode, HttpStatus, Param, Patch, Post, UsePipes } from '@nestjs/common';
import { Operation, PublicUser, UserAdminService } from '@vectorstore/auth';
import { DomainError } from '@vectorstore/common';
import { DtoValidationPipe } from '../../core/validation/dto-validation.pipe';
import { HttpController } from '../../core/rest/http-controller.decorator';
import { CreateUserRequestDto, UpdateUserRequestDto } from './users.request.dto';

/**
 * The users API (area B, administrators only: manage access): list, create, and change a user's role, active state,
 * password or name. In cluster mode the users are the cluster's, so a change made here holds on every peer.
 */
@HttpController('api/auth/users')
@UsePipes(DtoValidationPipe)
export class UsersHttpController {
  constructor(private readonly admin: UserAdminService) {}

  @Operation('Auth/ListUsers')
  @Get()
  @Header('Cache-Control', 'no-store')
  async list(): Promise<{ users: PublicUser[] }> {
    return { users: await this.admin.list() };
  }

  @Operation('Auth/CreateUser')
  @Post()
  @HttpCode(HttpStatus.CREATED)
  create(@Body() body: CreateUserRequestDto): Promise<PublicUser> {
    return this.admin.add({
      email: body.email,
      password: body.password,
      role: body.role ?? 'reader',
      fullName: body.full_name ?? null,
      ...(body.collections
        ? { collections: body.collections.map(({ collection, access }) => ({ collection, access })) }
        : {}),
    });
  }

  @Operation('Auth/UpdateUser')
  @Patch(':id')
  update(@Param('id') id: string, @Body() body: UpdateUserRequestDto): Promise<PublicUser> {
    if (Object.values(body).every((value) => value === undefined))
      throw DomainError.validation([
        'body: must change at least one of role, is_active, password, full_name, collections',
      ]);
    return this.admin.updateById(id, {
      ...(body.role !== undefined ? { role: body.role } : {}),
      ...(body.is_active !== undefined ? { isActive: body.is_active } : {}),
      ...(body.password !== undefined ? { password: body.password } : {}),
      ...(body.full_name !== undefined ? { fullName: body.full_name } : {}),
      ...(body.collections !== undefined
        ? { collections: body.collections.map(({ collection, access }) => ({ collection, access })) }
        : {}),
    });
  }
}
