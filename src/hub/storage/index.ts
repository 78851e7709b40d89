// The hub's object store (docs/team-mode.md §9): the folder of the embedded default or an
// S3-compatible bucket, chosen by `--storage`.
import { readFile, writeFile, rename, mkdir } from 'node:fs/promises';
import path from 'node:path';
import { AppError } from '../../shared/errors';
import type { UploadAuth } from '../../services/upload/credentials';
import { resolveTarget } from '../../services/upload/target';
import { FolderObjectStore, OBJECTS_SUBDIR } from './folder-store';
import type { HubObjectStore } from './object-store';
import { S3HubObjectStore } from './s3-store';
import { newSigningSecret, SIGNING_SECRET_BYTES } from './signed-url';

export * from './object-store';
export { FolderObjectStore, folderStoreError, hashStream, OBJECTS_SUBDIR } from './folder-store';
export { handleObjectRequest } from './object-http';
export { S3HubObjectStore, storageErrorFromS3 } from './s3-store';
export { presignS3Url } from './sigv4-presign';
export {
  newSigningSecret,
  OBJECT_URL_PATH,
  signObjectPath,
  verifyObjectRequest,
  type SignedObjectGrant,
} from './signed-url';
export { checkObject, hashObject, verifyBundle, type ObjectProblem } from './verify';

/** Where the hub keeps objects: the data folder's `objects/`, or an S3 bucket. */
export type HubStorageSpec =
  | { data: string; baseUrl?: string }
  | {
      /** `s3://bucket/prefix` */
      url: string;
      endpoint?: string;
      region?: string;
      pathStyle?: boolean;
      auth?: UploadAuth;
    };

/** The file in the data folder holding the per-hub secret that signs object URLs. */
export const SIGNING_SECRET_FILE = 'object-url.key';

/** The data folder's signing secret, made (0600, written whole) on first use. */
export async function loadSigningSecret(dataDir: string): Promise<Buffer> {
  const file = path.join(dataDir, SIGNING_SECRET_FILE);
  try {
    const key = await readFile(file);
    if (key.length === SIGNING_SECRET_BYTES) {
      return key;
    }
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') {
      throw e;
    }
  }
  await mkdir(dataDir, { recursive: true, mode: 0o700 });
  const key = newSigningSecret();
  const tmp = `${file}.${process.pid}.tmp`;
  await writeFile(tmp, key, { mode: 0o600 });
  await rename(tmp, file);
  return key;
}

/** Opens the hub's object store (`--data DIR` alone: DIR/objects; `--storage s3://…`: S3). */
export async function openHubStorage(
  spec: HubStorageSpec,
  env: NodeJS.ProcessEnv = process.env,
): Promise<HubObjectStore> {
  if ('data' in spec) {
    const dir = path.resolve(spec.data);
    return new FolderObjectStore({
      dir: path.join(dir, OBJECTS_SUBDIR),
      secret: await loadSigningSecret(dir),
      ...(spec.baseUrl ? { baseUrl: spec.baseUrl } : {}),
    });
  }
  if (!spec.url.startsWith('s3://')) {
    throw new AppError(
      'USAGE',
      `--storage must be s3://BUCKET/PREFIX (got "${spec.url}")`,
      undefined,
      'Give --storage s3://BUCKET/PREFIX [--endpoint URL] [--path-style], or leave it out to ' +
        'keep objects in the data folder.',
    );
  }
  const { target } = resolveTarget(
    {
      url: spec.url,
      endpoint: spec.endpoint,
      region: spec.region,
      forcePathStyle: spec.pathStyle,
    },
    env,
    undefined,
  );
  const store = new S3HubObjectStore(target, spec.auth ?? { kind: 'aws-chain' });
  await store.check();
  return store;
}
