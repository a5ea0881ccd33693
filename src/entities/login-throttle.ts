import { defineEntity, p, type InferEntity } from '@mikro-orm/core';

/** Failed-login counters per account and per client IP, in fixed windows; shared by all API processes. */
export const LoginThrottle = defineEntity({
  name: 'LoginThrottle',
  tableName: 'login_throttle',
  properties: {
    key: p.string().length(400).primary(),
    windowStart: p.datetime(),
    failures: p.integer(),
  },
});
export type LoginThrottle = InferEntity<typeof LoginThrottle>;
