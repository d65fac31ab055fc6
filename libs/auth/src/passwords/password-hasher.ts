import { hash, verify } from '@node-rs/argon2';
import type { Algorithm } from '@node-rs/argon2';
import { randomBytes } from 'node:crypto';

/** argon2id with OWASP's first recommended setting: 19 MiB memory, 2 iterations, 1 lane. */
export const ARGON2_OPTIONS = {
  // `Algorithm` is a const enum (inaccessible under isolatedModules); 2 is Argon2id.
  algorithm: 2 as Algorithm,
  memoryCost: 19_456,
  timeCost: 2,
  parallelism: 1,
} as const;

/** Upper bound on accepted passwords, so hashing cost cannot be driven up by huge inputs. */
export const MAX_PASSWORD_LENGTH = 1024;

/** Hashes and verifies passwords with argon2id (`@node-rs/argon2`). */
export class PasswordHasher {
  private dummyHash: Promise<string> | undefined;

  hash(password: string): Promise<string> {
    return hash(password, ARGON2_OPTIONS);
  }

  /** False for a wrong password or an unreadable hash; never throws for bad input. */
  async verify(passwordHash: string, password: string): Promise<boolean> {
    try {
      return await verify(passwordHash, password);
    } catch {
      return false;
    }
  }

  /**
   * Spends the same time as {@link verify} against a hash no password matches, so a login for an
   * unknown email takes about as long as one with a wrong password.
   */
  async verifyDummy(password: string): Promise<false> {
    await this.verify(await this.getDummyHash(), password);
    return false;
  }

  /** Computes the dummy hash ahead of the first login. */
  async warmUp(): Promise<void> {
    await this.getDummyHash();
  }

  private getDummyHash(): Promise<string> {
    this.dummyHash ??= this.hash(randomBytes(32).toString('base64url'));
    return this.dummyHash;
  }
}
