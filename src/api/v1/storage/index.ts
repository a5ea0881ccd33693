import { z } from 'zod';
import { acceptSignedUpload } from '../../../domain/resources/uploads.ts';
import { defineRoute } from '../../../http/route.ts';

/** The local store's presigned uploads land here (S3/MinIO take theirs directly). */
export const storageRoutes = [
  defineRoute({
    method: 'put',
    path: '/storage/{key}',
    problems: ['invalid_signature', 'upload_url_expired', 'upload_session_closed', 'upload_size_mismatch', 'upload_too_large'],
    tag: 'files',
    access: 'public',
    noPolicy: "the URL's HMAC signature is the credential, checked in the domain",
    summary: 'Target of a presigned upload URL on the local store; the signature authorizes it (403 when tampered or expired)',
    params: z.object({ key: z.string().min(1).max(500) }),
    query: z.object({ expires: z.string().max(20), signature: z.string().max(128) }),
    streamedBody: 'application/octet-stream',
    response: z.object({ size: z.number().int() }),
    handle: ({ domain, params, query, ctx }) => {
      const length = ctx.get('Content-Length');
      return acceptSignedUpload(
        domain,
        { key: params.key, expires: query.expires, signature: query.signature, contentType: ctx.get('Content-Type') },
        ctx.req,
        length ? Number(length) : undefined,
      );
    },
  }),
];
