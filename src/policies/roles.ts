import type { MemberRole } from '../entities/index.ts';

const RANK: Record<MemberRole, number> = { member: 1, editor: 2, admin: 3 };

/** Roles rank member < editor < admin; null (not a member) ranks below all. */
export const hasRole = (role: MemberRole | null, atLeast: MemberRole) => role !== null && RANK[role] >= RANK[atLeast];
