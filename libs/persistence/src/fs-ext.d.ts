// The part of fs-ext (no published types) that the locks use.
declare module 'fs-ext' {
  /** flock(2) on an open descriptor; throws an errno error (EAGAIN/EWOULDBLOCK when `*nb` finds it held). */
  export function flockSync(fd: number, flags: 'sh' | 'ex' | 'shnb' | 'exnb' | 'un'): void;
}
