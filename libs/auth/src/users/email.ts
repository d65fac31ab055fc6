import { isEmail } from 'class-validator';

/**
 * The one email rule, shared by the login DTO, the first-admin bootstrap and the CLI. A TLD is
 * not required so that `admin@localhost` style addresses work on private installs.
 */
export const EMAIL_OPTIONS = { require_tld: false, allow_ip_domain: false } as const;

export const MAX_EMAIL_LENGTH = 254;

export function isValidEmail(value: string): boolean {
  return value.length <= MAX_EMAIL_LENGTH && isEmail(value, EMAIL_OPTIONS);
}

/** Emails compare case-insensitively and without surrounding blanks. */
export function normalizeEmail(value: string): string {
  return value.trim().toLowerCase();
}
