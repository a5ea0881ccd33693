import type { User } from '../../entities/index.ts';

export interface UserRecord {
  id: string;
  username: string;
  email?: string;
  displayName: string | null;
  sysadmin: boolean;
  state: 'active' | 'deleted';
  createdAt: string;
}

/** Email only for the user themself and sysadmins (`withEmail`). */
export function presentUser(user: User, opts: { withEmail: boolean }): UserRecord {
  return {
    id: user.id,
    username: user.username,
    ...(opts.withEmail ? { email: user.email } : {}),
    displayName: user.displayName ?? null,
    sysadmin: user.sysadmin,
    state: user.state,
    createdAt: user.createdAt.toISOString(),
  };
}

/** The public face of a user: for member pickers and member lists. */
export const presentUserSummary = (user: User) => ({
  id: user.id,
  username: user.username,
  displayName: user.displayName ?? null,
});
