import type { AuthConfig } from '@vectorstore/config';
import { generatePassword, UserAdminService } from './user-admin.service';
import type { UserStore } from './user-store';

/** Used when VECTORSTORE_ADMIN_EMAIL is not set. */
export const DEFAULT_ADMIN_EMAIL = 'admin@localhost';

export interface FirstAdminLogger {
  log(message: string): void;
  warn(message: string): void;
}

/**
 * On a data folder without users, creates the first admin from VECTORSTORE_ADMIN_EMAIL and
 * VECTORSTORE_ADMIN_PASSWORD; without a password, generates a strong one and logs it once.
 * Later starts change nothing, whatever the variables say.
 */
export async function ensureFirstAdmin(
  config: Pick<AuthConfig, 'adminEmail' | 'adminPassword'>,
  store: UserStore,
  admin: UserAdminService,
  logger: FirstAdminLogger,
): Promise<void> {
  if ((await store.list()).length > 0) return;
  const email = config.adminEmail ?? DEFAULT_ADMIN_EMAIL;
  const password = config.adminPassword ?? generatePassword();
  const created = await admin.addFirstAdmin(email, password);
  if (!created) return;
  if (config.adminPassword === undefined) {
    logger.warn(
      `Created the first admin ${created.email} with the generated password ${password} ` +
        '(shown only this once; change it with `npm run user -- reset-password`)',
    );
  } else {
    logger.log(`Created the first admin ${created.email} from VECTORSTORE_ADMIN_EMAIL / VECTORSTORE_ADMIN_PASSWORD`);
  }
}
