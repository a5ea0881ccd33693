/** Who is asking. Domain functions and policies take an Actor, never a Koa context. */
export interface Actor {
  userId: string | null;
  sysadmin: boolean;
}

export const anonymous: Actor = Object.freeze({ userId: null, sysadmin: false });
