import { MAX_PASSWORD_LENGTH, MIN_ADMIN_SET_PASSWORD_LENGTH } from '@vectorstore/auth';
import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  IsArray,
  IsBoolean,
  IsDefined,
  IsIn,
  IsOptional,
  IsString,
  MaxLength,
  MinLength,
  ValidateIf,
  ValidateNested,
} from 'class-validator';
import { IsLoginEmail } from './auth-request.validators';

const ROLES = ['admin', 'reader'];
const MAX_FULL_NAME_LENGTH = 200;
const MAX_GRANTS = 1000;

/** Validated unless left out: null is checked (and refused) like any other value. */
const isPresent = (_: object, value: unknown): boolean => value !== undefined;

/** Read (`r`) or read-write (`rw`) on one collection, Qdrant's per-collection access. */
export class CollectionGrantDto {
  @IsDefined({ message: 'is required' })
  @IsString({ message: 'must be a string' })
  @MinLength(1, { message: 'must not be empty' })
  @MaxLength(255, { message: 'must be at most 255 characters' })
  collection!: string;

  @IsDefined({ message: 'is required' })
  @IsIn(['r', 'rw'], { message: 'must be one of r, rw' })
  access!: 'r' | 'rw';
}

/** `POST /api/auth/users`: a new user (role reader unless given). */
export class CreateUserRequestDto {
  @IsLoginEmail()
  email!: string;

  @IsString({ message: 'must be a string' })
  @MinLength(MIN_ADMIN_SET_PASSWORD_LENGTH, { message: `must be at least ${MIN_ADMIN_SET_PASSWORD_LENGTH} characters` })
  @MaxLength(MAX_PASSWORD_LENGTH, { message: `must be at most ${MAX_PASSWORD_LENGTH} characters` })
  password!: string;

  @IsOptional()
  @IsIn(ROLES, { message: `must be one of ${ROLES.join(', ')}` })
  role?: 'admin' | 'reader';

  @IsOptional()
  @ValidateIf((_, value) => value !== null)
  @IsString({ message: 'must be a string or null' })
  @MaxLength(MAX_FULL_NAME_LENGTH, { message: `must be at most ${MAX_FULL_NAME_LENGTH} characters` })
  full_name?: string | null;
  @IsOptional()
  @IsArray({ message: 'must be an array of {collection, access}' })
  @ArrayMaxSize(MAX_GRANTS, { message: `must hold at most ${MAX_GRANTS} grants` })
  @ValidateNested({ each: true })
  @Type(() => CollectionGrantDto)
  collections?: CollectionGrantDto[];
}

/**
 * `PATCH /api/auth/users/{id}`: any of role, active, password, full name, collections. A field left out is unchanged;
 * only `full_name` may be null (`@IsOptional()` would let a null role, active flag, password or grant list through to
 * the change, and a null `is_active` would deactivate the last admin past its guard).
 */
export class UpdateUserRequestDto {
  @ValidateIf(isPresent)
  @IsIn(ROLES, { message: `must be one of ${ROLES.join(', ')}` })
  role?: 'admin' | 'reader';

  @ValidateIf(isPresent)
  @IsBoolean({ message: 'must be a boolean' })
  is_active?: boolean;

  @ValidateIf(isPresent)
  @IsString({ message: 'must be a string' })
  @MinLength(MIN_ADMIN_SET_PASSWORD_LENGTH, { message: `must be at least ${MIN_ADMIN_SET_PASSWORD_LENGTH} characters` })
  @MaxLength(MAX_PASSWORD_LENGTH, { message: `must be at most ${MAX_PASSWORD_LENGTH} characters` })
  password?: string;

  @IsOptional()
  @ValidateIf((_, value) => value !== null)
  @IsString({ message: 'must be a string or null' })
  @MaxLength(MAX_FULL_NAME_LENGTH, { message: `must be at most ${MAX_FULL_NAME_LENGTH} characters` })
  full_name?: string | null;
  @ValidateIf(isPresent)
  @IsArray({ message: 'must be an array of {collection, access}' })
  @ArrayMaxSize(MAX_GRANTS, { message: `must hold at most ${MAX_GRANTS} grants` })
  @ValidateNested({ each: true })
  @Type(() => CollectionGrantDto)
  collections?: CollectionGrantDto[];
}
