import { Transform } from 'class-transformer';
import {
  IsIn,
  IsInt,
  IsOptional,
  IsString,
  Matches,
  Max,
  MaxLength,
  Min,
  MinLength,
  ValidateIf,
} from 'class-validator';
import { COOKIE_SECURE_MODES, LOG_LEVELS } from './app-config';

/** One etcd endpoint: http(s), a host name or [IPv6], a port 1-65535. */
const ENDPOINT =
  'https?://([A-Za-z0-9.-]+|\\[[0-9A-Fa-f:.]+\\]):([1-9]\\d{0,3}|[1-5]\\d{4}|6[0-4]\\d{3}|65[0-4]\\d{2}|655[0-2]\\d|6553[0-5])';

const toInt = ({ value }: { value: unknown }): unknown =>
  typeof value === 'string' && /^\s*-?\d+\s*$/.test(value) ? Number.parseInt(value, 10) : value;

/**
 * Every environment variable the server reads, with its rule. Defaults live in `loadConfig`,
 * so this class states only what a present value must look like.
 */
export class EnvironmentVariables {
  @IsOptional()
  @Transform(toInt)
  @Max(65535)
  @Min(0)
  @IsInt({ message: 'must be an integer' })
  VECTORSTORE_HTTP_PORT?: number;

  @IsOptional()
  @Transform(toInt)
  @Max(65535)
  @Min(0)
  @IsInt({ message: 'must be an integer' })
  VECTORSTORE_GRPC_PORT?: number;

  @IsOptional()
  @IsString()
  @MinLength(1)
  VECTORSTORE_HOST?: string;

  @IsOptional()
  @IsString()
  @MinLength(1)
  VECTORSTORE_DATA_DIR?: string;

  @IsOptional()
  @IsString()
  @MinLength(1)
  VECTORSTORE_SNAPSHOTS_DIR?: string;

  @IsOptional()
  @IsIn(LOG_LEVELS, { message: `must be one of ${LOG_LEVELS.join(', ')}` })
  VECTORSTORE_LOG_LEVEL?: string;

  @IsOptional()
  @Transform(toInt)
  @Max(1_000_000)
  @Min(0)
  @IsInt({ message: 'must be an integer number of seconds (0 turns the scrub off)' })
  VECTORSTORE_SCRUB_INTERVAL?: number;

  @IsOptional()
  @Transform(toInt)
  @Min(0)
  @IsInt({ message: 'must be an integer number of MB per second (0: no limit)' })
  VECTORSTORE_SCRUB_MB_PER_SEC?: number;

  @IsOptional()
  @IsString()
  @MinLength(3)
  @MaxLength(254)
  VECTORSTORE_ADMIN_EMAIL?: string;

  @IsOptional()
  @IsString()
  @MinLength(12, { message: 'must be at least 12 characters' })
  @MaxLength(1024)
  VECTORSTORE_ADMIN_PASSWORD?: string;

  @IsOptional()
  @IsString()
  @MinLength(32, { message: 'must be at least 32 characters (256 bits)' })
  VECTORSTORE_JWT_SECRET?: string;

  @IsOptional()
  @Transform(toInt)
  @Min(1)
  @IsInt({ message: 'must be an integer number of seconds' })
  VECTORSTORE_ACCESS_TTL?: number;

  @IsOptional()
  @Transform(toInt)
  @Min(1)
  @IsInt({ message: 'must be an integer number of seconds' })
  VECTORSTORE_REFRESH_TTL?: number;

  @IsOptional()
  @Transform(toInt)
  @Min(0)
  @Max(300, { message: 'must be at most 300 seconds (a longer grace widens the window for a stolen token)' })
  @IsInt({ message: 'must be an integer number of seconds' })
  VECTORSTORE_REFRESH_REUSE_GRACE?: number;

  @IsOptional()
  @ValidateIf((_, v) => v !== '')
  @IsString()
  @MinLength(16, { message: 'must be at least 16 characters' })
  VECTORSTORE_API_KEY?: string;

  @IsOptional()
  @ValidateIf((_, v) => v !== '')
  @IsString()
  @MinLength(16, { message: 'must be at least 16 characters' })
  VECTORSTORE_READ_ONLY_API_KEY?: string;

  @IsOptional()
  @IsIn(COOKIE_SECURE_MODES, { message: `must be one of ${COOKIE_SECURE_MODES.join(', ')}` })
  VECTORSTORE_COOKIE_SECURE?: string;

  @IsOptional()
  @IsIn(['true', 'false'], { message: 'must be true or false' })
  VECTORSTORE_CLUSTER_ENABLED?: string;

  @IsOptional()
  @Matches(new RegExp(`^${ENDPOINT}(,${ENDPOINT})*$`), {
    message: 'must be a comma-separated list of http(s)://host:port',
  })
  VECTORSTORE_ETCD_ENDPOINTS?: string;

  @IsOptional()
  @IsString()
  @MinLength(1)
  VECTORSTORE_ETCD_USERNAME?: string;

  @IsOptional()
  @IsString()
  @MinLength(1)
  VECTORSTORE_ETCD_PASSWORD?: string;

  @IsOptional()
  @IsString()
  @MinLength(1)
  VECTORSTORE_ETCD_TLS_CA?: string;

  @IsOptional()
  @Matches(/^[A-Za-z0-9_.-]{1,64}$/, { message: 'must be 1-64 letters, digits, dots, dashes or underscores' })
  VECTORSTORE_CLUSTER_NAME?: string;

  @IsOptional()
  @Transform(toInt)
  @Max(65535)
  @Min(0)
  @IsInt({ message: 'must be an integer' })
  VECTORSTORE_P2P_PORT?: number;

  @IsOptional()
  @IsString()
  @MinLength(1)
  VECTORSTORE_P2P_HOST?: string;

  @IsOptional()
  @IsString()
  @MinLength(1)
  VECTORSTORE_ADVERTISE_HOST?: string;

  @IsOptional()
  @IsString()
  @MinLength(32, { message: 'must be at least 32 characters' })
  VECTORSTORE_CLUSTER_SECRET?: string;

  @IsOptional()
  @Transform(toInt)
  @Max(3600)
  @Min(1)
  @IsInt({ message: 'must be an integer number of seconds' })
  VECTORSTORE_LEASE_TTL?: number;

  @IsOptional()
  @Transform(toInt)
  @Min(1)
  @IsInt({ message: 'must be an integer number of seconds' })
  VECTORSTORE_DEAD_GRACE?: number;

  @IsOptional()
  @Transform(toInt)
  @Max(600000)
  @Min(100)
  @IsInt({ message: 'must be an integer number of milliseconds' })
  VECTORSTORE_ETCD_TIMEOUT_MS?: number;

  @IsOptional()
  @Transform(toInt)
  @Max(64)
  @Min(1)
  @IsInt({ message: 'must be an integer number of transfers' })
  VECTORSTORE_TRANSFER_LIMIT?: number;

  @IsOptional()
  @Transform(toInt)
  @Min(1)
  @IsInt({ message: 'must be an integer number of seconds' })
  VECTORSTORE_AUTO_REPLICATE_AFTER?: number;
}
