// How the services open an S3 store: an ObjectStore whose S3 client (s3-client.ts, the one module
// that imports @aws-sdk/client-s3) loads on the store's first call. The SDK takes ~0.25 s to
// import; a host that builds its services (the CLI's every command, the server, the app) pays it
// only when it really talks to S3.
import { AppError } from '../../shared/errors';
import type { UploadAuth } from './credentials';
import type { CallOptions, ObjectInfo, ObjectStore, Payload } from './object-store';
import type { S3ClientOptions } from './s3-client';
import { describeTarget, type UploadTarget } from './target';

/** An S3 store over `target` that loads the AWS SDK when first used. */
export function openS3Store(
  target: UploadTarget,
  auth: UploadAuth,
  options: S3ClientOptions = {},
): ObjectStore {
  return lazyObjectStore(describeTarget(target), async () => {
    const { S3ObjectStore } = await import('./s3-client');
    return new S3ObjectStore(target, auth, options);
  });
}

/**
 * An ObjectStore that builds the real one with `load` on its first call and hands every call on;
 * close() closes it once built (also one still loading); calls after close() get INVALID_STATE.
 */
export function lazyObjectStore(
  description: string,
  load: () => Promise<ObjectStore>,
): ObjectStore {
  let loading: Promise<ObjectStore> | null = null;
  let closed = false;
  const store = (): Promise<ObjectStore> => {
    if (closed) {
      return Promise.reject(
        new AppError(
          'INVALID_STATE',
          `The store ${description} is closed; this call came after close().`,
        ),
      );
    }
    return (loading ??= load());
  };
  return {
    description,
    checkBucket: async (options?: CallOptions) => (await store()).checkBucket(options),
    putObject: async (key, payload: Payload, meta, options) =>
      (await store()).putObject(key, payload, meta, options),
    createMultipartUpload: async (key, meta, options) =>
      (await store()).createMultipartUpload(key, meta, options),
    uploadPart: async (key, uploadId, partNumber, payload, options) =>
      (await store()).uploadPart(key, uploadId, partNumber, payload, options),
    listParts: async (key, uploadId, options) => (await store()).listParts(key, uploadId, options),
    completeMultipartUpload: async (key, uploadId, parts, options) =>
      (await store()).completeMultipartUpload(key, uploadId, parts, options),
    abortMultipartUpload: async (key, uploadId, options) =>
      (await store()).abortMultipartUpload(key, uploadId, options),
    headObject: async (key, options) => (await store()).headObject(key, options),
    getObject: async (key, options) => (await store()).getObject(key, options),
    deleteObject: async (key, options) => (await store()).deleteObject(key, options),
    listObjects: (prefix, options) => ({
      async *[Symbol.asyncIterator](): AsyncGenerator<ObjectInfo> {
        yield* (await store()).listObjects(prefix, options);
      },
    }),
    close: () => {
      if (closed) {
        return;
      }
      closed = true;
      // a store still loading closes as soon as it is built; one that failed to load has nothing open
      const built = loading;
      if (built) {
        void (async () => {
          try {
            (await built).close();
          } catch {
            // never built: nothing to close
          }
        })();
      }
    },
  };
}
